import ArgumentParser
import Foundation
import Gateway

/// `youll-devices monitor`: every bridge event, device state and availability change as it
/// happens, one line each.
struct MonitorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor", abstract: "Print bridge events, device states and availability as they happen.")

    @OptionGroup var bridge: BridgeOptions

    @Option(name: .long, help: "Stop after this many messages.")
    var count: Int?

    @Option(name: .long, help: "Stop after this many seconds.")
    var seconds: Double?

    @Flag(name: .long, help: "Also print the retained states and availability the broker sends first.")
    var retained = false

    func run() async throws {
        try await reportingErrors {
            if let count, count < 1 { throw CLIError("--count: expected 1 or more, got \(count)") }
            if let seconds, !(seconds > 0 && seconds <= 31_536_000) {
                throw CLIError("--seconds: expected a number of seconds above 0, got \(seconds)")
            }
            try await bridge.withBridge { client, _ in
                let base = client.baseTopic
                let stream = try await client.subscribe(["\(base)/bridge/event", "\(base)/+", "\(base)/+/availability"])
                let terminal = Terminal.current
                var printed = 0
                try await forEach(stream, for: seconds.map { .milliseconds(Int64($0 * 1000)) }) { message in
                    guard retained || !message.retained else { return true }
                    if bridge.json {
                        printJSONLine(MonitorLine.json(message, at: Date()))
                    } else {
                        print(MonitorLine.human(message, baseTopic: base, at: Date(), terminal: terminal))
                    }
                    flushStandardOutput()
                    printed += 1
                    return count.map { printed < $0 } ?? true
                }
            }
        }
    }
}
