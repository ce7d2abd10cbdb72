import Foundation
import LocalBroker
import MQTTLink
import Testing
import TuyaCore
import TuyaWire

/// Real parts: the built `youll-devices` binary and a private mosquitto. No daemon: the test
/// plays a forged one. Any client of the broker can publish on the bridge's response topics
/// (a request's transaction is visible on its own topic), so what the CLI reads there is
/// untrusted: absurd numbers give a line or a clear error, never a crash.
@Suite("youll-devices against a forged bridge", .serialized, .timeLimit(.minutes(2)))
struct ForgedBridgeTests {
    /// Answers every request on `youll/bridge/request/#` with `status: ok` and `data`, as the
    /// daemon would with the transaction it was sent, after publishing the retained `online`
    /// state the CLI checks first.
    final class ForgedBridge: Sendable {
        let client: MQTTClient
        let answering: Task<Void, Never>

        init(broker: LocalBroker, answering data: JSONValue) async throws {
            let client = try MQTTClient(configuration: MQTTConfiguration(host: "127.0.0.1", port: broker.port))
            self.client = client
            let events = client.events
            try await client.connect()
            try await client.publish(
                topic: "youll/bridge/state", payload: Array(#"{"state":"online"}"#.utf8), qos: .atLeastOnce,
                retain: true)
            try await client.subscribe("youll/bridge/request/#", qos: .atLeastOnce)
            answering = Task {
                for await case .message(let message) in events {
                    let verb = String(message.topic.dropFirst("youll/bridge/request/".count))
                    guard let request = try? CompactJSON.decode(message.payload).objectValue,
                        let transaction = request["transaction"]
                    else { continue }
                    let answer: JSONValue = .object([
                        "status": .string("ok"), "data": data, "transaction": transaction,
                    ])
                    _ = try? await client.publish(
                        topic: "youll/bridge/response/\(verb)", payload: CompactJSON.encode(answer),
                        qos: .atMostOnce)
                }
            }
        }

        func stop() async {
            answering.cancel()
            await client.close()
        }
    }

    func environment(_ broker: LocalBroker) -> [String: String] {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("youll-forged-\(UUID().uuidString)")
            .path
        return [
            "HOME": home, "XDG_CONFIG_HOME": home + "/.config", "XDG_STATE_HOME": home + "/.state", "NO_COLOR": "1",
            "YOULL_MQTT_URL": broker.url,
        ]
    }

    /// Runs the CLI with `arguments` against a forged bridge that answers every request with
    /// `data`, on a broker of its own.
    func run(_ arguments: [String], answering data: JSONValue) async throws -> CLIRunner.Result {
        let broker = try await LocalBroker.started()
        let bridge = try await ForgedBridge(broker: broker, answering: data)
        let result = try await CLIRunner.run(arguments, environment: environment(broker))
        await bridge.stop()
        return result
    }

    @Test("get on a device that never reported suggests a --refresh that names it, quoted for the shell")
    func getHintNamesTheDevice() async throws {
        let broker = try await LocalBroker.started()
        let bridge = try await ForgedBridge(broker: broker, answering: .object([:]))
        try await bridge.client.publish(
            topic: "youll/bridge/devices",
            payload: Array(#"[{"id":"bf0000000000000000desk","friendly_name":"desk lamp"}]"#.utf8), qos: .atLeastOnce,
            retain: true)
        let result = try await CLIRunner.run(["get", "desk lamp", "--timeout", "3"], environment: environment(broker))
        await bridge.stop()
        #expect(result.status != 0)
        #expect(result.stderr.contains("youll-devices get --refresh 'desk lamp'"), "\(result.stderr)")
    }

    static let absurd: [JSONValue] = [.double(1e300), .double(-1e300), .integer(.max), .integer(.min), .integer(-5)]

    @Test("timer status with absurd elapsed and remaining seconds prints a line", arguments: absurd)
    func timerStatus(value: JSONValue) async throws {
        let result = try await run(
            ["timer", "status", "--timeout", "10"],
            answering: .object([
                "state": .string("running"), "phase": .string("stage"), "stage": .string("sit"),
                "elapsed_seconds": value, "remaining_seconds": .integer(10), "next_bell_seconds": value,
            ]))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("sit  "), "\(result.stdout)")
    }

    /// An escape sequence in a forged status would reach the user's terminal (set its title,
    /// rewrite the screen, on some terminals worse).
    @Test("timer status shows terminal escapes in a forged stage, state or id as text, never sends them")
    func timerStatusEscapes() async throws {
        let escape = "\u{1B}]0;owned\u{07}\u{1B}[2J"
        let result = try await run(
            ["timer", "status", "--timeout", "10"],
            answering: .object([
                "state": .string("running" + escape), "phase": .string("stage"), "stage": .string("sit" + escape),
                "elapsed_seconds": .integer(10), "remaining_seconds": .integer(10), "id": .string("s1" + escape),
            ]))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            !result.stdout.contains("\u{1B}") && !result.stdout.contains("\u{07}"), "\(result.stdout.debugDescription)")
        #expect(result.stdout.hasPrefix("sit\\u{1b}]0;owned"), "\(result.stdout.debugDescription)")
    }

    @Test("pair permit with an absurd window answers within its own bounds", arguments: absurd)
    func permitWindow(value: JSONValue) async throws {
        let result = try await run(
            ["pair", "permit", "--seconds", "1", "--timeout", "10"],
            answering: .object(["value": .bool(true), "time": value]))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("pairing permitted for 1 s"), "\(result.stderr)")
    }

    /// bash's `compgen -W` expands every word it is given (command substitution included), and
    /// the completion script hands it what the binary offers: names from a retained
    /// `bridge/devices` anyone on the broker can publish. Pressing TAB must not run them.
    @Test("bash completion offers no forged name that the shell would run, and still the plain ones")
    func completionInjection() async throws {
        let broker = try await LocalBroker.started()
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent(
            "youll-injected-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: marker) }
        let forged: JSONValue = .array([
            .object([
                "id": .string("a1"), "friendly_name": .string("desk"), "capabilities": .array([.string("brightness")]),
            ]),
            .object(["id": .string("a2"), "friendly_name": .string("d$(touch \(marker.path))")]),
            .object(["id": .string("a3"), "friendly_name": .string("d`touch \(marker.path)`")]),
            .object([
                "id": .string("a4"), "friendly_name": .string("dim"),
                "capabilities": .array([.string("b$(touch \(marker.path))")]),
            ]),
        ])
        let publisher = try MQTTClient(configuration: MQTTConfiguration(host: "127.0.0.1", port: broker.port))
        try await publisher.connect()
        try await publisher.publish(
            topic: "youll/bridge/devices", payload: CompactJSON.encode(forged), qos: .atLeastOnce, retain: true)
        await publisher.close()
        // What bash does on `youll-devices get d<TAB>` and `youll-devices set dim b<TAB>`.
        let binary = try CLIRunner.binary().path
        let script = """
            source <("$BIN" --generate-completion-script bash)
            complete_line() {
                COMP_WORDS=("$BIN" "$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
                COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
                _youll-devices
                printf '%s\\n' "${COMPREPLY[@]}"
            }
            complete_line get d
            complete_line set dim b
            """
        var environment = environment(broker)
        environment["BIN"] = binary
        let result = try await ChildProcess.run("/bin/bash", ["-c", script], environment: environment)
        #expect(!FileManager.default.fileExists(atPath: marker.path), "a TAB ran a forged name: \(result.stdout)")
        let offered = result.stdout.split(separator: "\n").map(String.init)
        #expect(offered.contains("desk"), "\(result.stdout) \(result.stderr)")
        #expect(offered.contains("dim"), "\(result.stdout)")
        #expect(offered.allSatisfy { !$0.contains("$") && !$0.contains("`") }, "\(result.stdout)")
    }
}
