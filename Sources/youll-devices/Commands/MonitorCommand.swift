import ArgumentParser
import Foundation
import Gateway
import TuyaCore

/// `youll-devices monitor`: every bridge event, device state and availability change as it
/// happens, one line each; a state change shows what changed. When the broker goes away it
/// says so and reconnects (as mosquitto_sub does), until --count or --seconds is reached.
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
            if let count, count < 1 { throw CLIError.usage("--count: expected 1 or more, got \(count)") }
            if let seconds, !(seconds > 0 && seconds <= 31_536_000) {
                throw CLIError.usage("--seconds: expected a number of seconds above 0, got \(seconds)")
            }
            let clock = ContinuousClock()
            let end = seconds.map { clock.now + .milliseconds(Int64($0 * 1000)) }
            var watch = Watch(count: count, retained: retained, json: bridge.json)
            // The first connection fails as every command does; later ones are retried.
            var lost = try await bridge.withBridge { client, _ in try await watch.follow(client, until: end) }
            var retry = 0
            while lost {
                // 1, 2, 4, then 5 s between attempts while the broker stays away.
                let wait = Duration.seconds(min(5, 1 << min(retry, 3)))
                if let end, clock.now + wait >= end { return }
                try await Task.sleep(for: wait)
                lost = try await watch.reconnect(bridge, until: end, retry: &retry)
            }
        }
    }

    /// The monitor's state across connections.
    struct Watch {
        var count: Int?
        var retained: Bool
        var json: Bool
        var printed = 0
        var states = MonitorState()

        /// Prints until done (false) or the connection is lost (true).
        mutating func follow(_ client: BridgeClient, until end: ContinuousClock.Instant?) async throws -> Bool {
            let base = client.baseTopic
            let stream = try await client.subscribe(["\(base)/bridge/event", "\(base)/+", "\(base)/+/availability"])
            let terminal = Terminal.current
            let left = end.map { $0 - ContinuousClock.now }
            do {
                let json = json
                let dropped = { (count: Int) in
                    let lines = count == 1 ? "1 message" : "\(count) messages"
                    Self.note(
                        "\(lines) dropped: the broker sent faster than this output was read", json: json,
                        terminal: terminal)
                }
                try await forEach(stream, for: left, onDropped: dropped) { message in
                    let changes = message.topic.hasSuffix("/availability") ? nil : states.changes(message)
                    guard retained || !message.retained else { return true }
                    // A state repeated unchanged (a periodic query's answer) says nothing new.
                    if !json, changes == .object([:]) { return true }
                    if json {
                        printJSONLine(MonitorLine.json(message, at: Date()))
                    } else {
                        print(
                            MonitorLine.human(
                                message, baseTopic: base, at: Date(), terminal: terminal, changes: changes))
                    }
                    flushStandardOutput()
                    printed += 1
                    return count.map { printed < $0 } ?? true
                }
                return false
            } catch is ConnectionLost {
                note("lost the connection to the broker; reconnecting (Ctrl-C to stop)", terminal: terminal)
                return true
            }
        }

        /// One attempt to connect again and follow: false when done, true when the connection
        /// could not be made or was lost again (`retry` counts failed attempts in a row).
        mutating func reconnect(_ bridge: BridgeOptions, until end: ContinuousClock.Instant?, retry: inout Int)
            async throws -> Bool
        {
            let configuration = try bridge.loadConfiguration()
            let client = try BridgeClient(configuration: configuration, connectTimeout: .seconds(5))
            do {
                try await client.connect(timeout: .seconds(5))
            } catch {
                await client.close()
                retry += 1
                return true
            }
            retry = 0
            note("reconnected to the broker at \(configuration.mqtt)", terminal: .current)
            let lost = try await follow(client, until: end)
            await client.close()
            return lost
        }

        /// A line about the connection: in the columns on stdout, on stderr with --json.
        private func note(_ text: String, terminal: Terminal) {
            Self.note(text, json: json, terminal: terminal)
        }

        private static func note(_ text: String, json: Bool, terminal: Terminal) {
            if json {
                printNote(text)
            } else {
                let subject = "broker" + String(repeating: " ", count: 10)
                print(
                    terminal.paint(Timestamp.localTime(Date()), .dim) + "  " + subject + "  "
                        + terminal.paint("connection    ", .yellow) + "  " + text)
                flushStandardOutput()
            }
        }
    }
}
