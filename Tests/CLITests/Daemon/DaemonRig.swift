import DeviceSimulator
import Foundation
import Gateway
import LocalBroker
import TuyaCore
import Testing
import TuyaWire
import YoullTestSupport

#if canImport(Glibc)
    import Glibc
#endif
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The real parts of an end-to-end test: a private mosquitto, the real `youll-devices
/// serve` binary with a temporary state directory and config file, simulated Tuya devices
/// speaking the real protocol on the same broker, and an observer client.
final class DaemonRig {
    let broker: LocalBroker
    let directory: URL
    let configPath: String
    let stateDirectory: String
    let observer: BridgeObserver
    let library: ProfileLibrary
    /// Where the daemon serves Prometheus metrics (a free loopback port, never the default 9464).
    let metricsPort: Int
    private(set) var daemon: ChildProcess?
    private var transaction = 0

    static let repository = Repository.root

    init(extraConfig: String = "") async throws {
        broker = try await LocalBroker.started()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("youll-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        stateDirectory = directory.appendingPathComponent("state").path
        configPath = directory.appendingPathComponent("config.yaml").path
        metricsPort = try LocalBroker.freeLoopbackPort()
        let config = """
            base_topic: youll
            state_directory: \(stateDirectory)
            mqtt:
              url: \(broker.url)
            metrics:
              listen: 127.0.0.1:\(metricsPort)
            \(extraConfig)
            """
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        observer = try await BridgeObserver(url: broker.url)
        library = Repository.shippedProfiles
    }

    /// A test that failed before `shutdown` still leaves no daemon or files behind.
    deinit {
        daemon?.kill()
        try? FileManager.default.removeItem(at: directory)
    }

    /// `GET /metrics` from the running daemon, over HTTP, as Prometheus would scrape it.
    func scrapeMetrics() async throws -> String {
        let url = try #require(URL(string: "http://127.0.0.1:\(metricsPort)/metrics"))
        let (data, response) = try await URLSession.shared.data(from: url)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        return String(decoding: data, as: UTF8.self)
    }

    /// The value of one sample in Prometheus text: `name` with exactly these labels, in any order.
    static func sample(_ text: String, _ name: String, _ labels: [String: String] = [:]) -> Double? {
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " ") else { continue }
            let series = line[..<space]
            let metric = series.prefix { $0 != "{" }
            guard metric == name else { continue }
            var found: [String: String] = [:]
            if let open = series.firstIndex(of: "{"), series.hasSuffix("}") {
                for pair in series[series.index(after: open)..<series.index(before: series.endIndex)].split(
                    separator: ",")
                {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    if parts.count == 2 { found[String(parts[0])] = String(parts[1].dropFirst().dropLast()) }
                }
            }
            if found == labels { return Double(line[line.index(after: space)...]) }
        }
        return nil
    }

    var logPath: String { directory.appendingPathComponent("serve.log").path }
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Starts `youll-devices serve --config …` and waits for `bridge/state` online.
    func startDaemon(environment extra: [String: String] = [:]) async throws {
        let mark = await observer.mark
        let environment = cleanEnvironment(extra)
        daemon = try ChildProcess.spawn(
            try CLIRunner.binary().path, ["serve", "--config", configPath], outputPath: logPath,
            environment: environment)
        _ = try await observer.wait(for: "youll/bridge/state", after: mark) { $0.json?["state"]?.string == "online" }
    }

    /// This process's environment without anything that would point the binary elsewhere
    /// (`YOULL_*`, systemd's variables, `NO_COLOR`), with the XDG folders in the rig.
    func cleanEnvironment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for key in environment.keys
        where key.hasPrefix("YOULL_")
            || ["NOTIFY_SOCKET", "INVOCATION_ID", "STATE_DIRECTORY", "NO_COLOR"].contains(key)
        {
            environment[key] = nil
        }
        environment["XDG_CONFIG_HOME"] = directory.appendingPathComponent("xdg-config").path
        environment["XDG_STATE_HOME"] = directory.appendingPathComponent("xdg-state").path
        environment.merge(extra) { $1 }
        return environment
    }

    /// Runs `youll-devices ARGUMENTS --config <the rig's config>` as a user would, to
    /// completion, on a thread of its own (the child may take seconds; the test's tasks,
    /// the observer among them, keep running).
    func cli(_ arguments: [String], environment extra: [String: String] = [:]) async throws -> CLIRunner.Result {
        try await Self.cli(arguments + ["--config", configPath], environment: cleanEnvironment(extra))
    }

    /// `cli` for a caller that runs several at once: the arguments (with `--config`) and
    /// the environment (from `cleanEnvironment`) are given whole.
    static func cli(_ arguments: [String], environment: [String: String]) async throws -> CLIRunner.Result {
        let path = try CLIRunner.binary().path
        let output = try await ChildProcess.run(path, arguments, environment: environment)
        return CLIRunner.Result(status: output.status ?? -1, stdout: output.stdout, stderr: output.stderr)
    }

    /// SIGTERM, and the exit status (nil when a signal ended it). A daemon still running
    /// `stopLimit` later is hung, as `systemctl stop` would find it: recorded as an issue
    /// with the end of its log, then killed, so the test fails instead of waiting for ever.
    func stopDaemon() async -> Int32? {
        guard let daemon else { return nil }
        self.daemon = nil
        daemon.signal(SIGTERM)
        switch await daemon.exit(within: Self.stopLimit) {
        case .exited(let status):
            return status
        case .stillRunning:
            Issue.record(
                "the daemon did not stop within \(Self.stopLimit) of SIGTERM; its log ends:\n\(log.suffix(3000))")
            daemon.kill()
            return nil
        }
    }

    /// Longer than the daemon's own shutdown allows itself (5 s for requests under way, then
    /// each service's last writes and publishes), with room for a loaded machine.
    static let stopLimit = Duration.seconds(60)

    func killDaemon() {
        daemon?.kill()
        daemon = nil
    }

    /// Publishes a request with a fresh transaction and returns its response.
    func request(_ verb: String, _ payload: [String: JSONValue], timeout: Duration = .seconds(30)) async throws
        -> JSONValue
    {
        transaction += 1
        let id = "t\(transaction)"
        var object = payload
        object["transaction"] = .string(id)
        object = try await secured(verb, object)
        let mark = await observer.mark
        try await observer.publish("youll/bridge/request/\(verb)", CompactJSON.encode(.object(object)))
        let response = try await observer.wait(for: "youll/bridge/response/\(verb)", after: mark, timeout: timeout) {
            $0.json?["transaction"]?.string == id
        }
        return try #require(response.json)
    }

    /// `object` as the CLI sends it: a `local_key` sealed to the key in the daemon's
    /// `bridge/info`, and signed with the token in the state directory when the verb needs it.
    func secured(_ verb: String, _ object: [String: JSONValue]) async throws -> [String: JSONValue] {
        let token = (try? String(contentsOfFile: stateDirectory + "/bridge-token", encoding: .utf8))
            .flatMap(BridgeToken.init(text:))
        // The daemon publishes bridge/info right after its online state: wait for it when a key is to be sealed.
        let info =
            object["local_key"] == nil
            ? nil
            : try await observer.wait(for: "youll/bridge/info") { $0.json?["public_key"]?.string != nil }.json
        return try BridgeAuthentication.prepare(
            verb: verb, payload: object, token: token, gatewayKey: info?["public_key"]?.string,
            time: Int64(Date().timeIntervalSince1970))
    }

    /// Publishes raw bytes on a topic (hostile-input tests).
    func publish(_ topic: String, _ payload: [UInt8]) async throws {
        try await observer.publish(topic, payload)
    }

    /// Simulated devices on the rig's broker.
    func fleet(lights: Int = 1, diffusers: Int = 0, seed: UInt64) async throws -> SimulatorFleet {
        let fleet = try SimulatorFleet(
            options: .init(lights: lights, diffusers: diffusers, seed: seed), library: library,
            broker: SwarmConfiguration(brokerURL: broker.url))
        try await fleet.start()
        guard await fleet.waitUntilConnected(timeout: .seconds(20)) else {
            throw RigError("simulated devices did not connect")
        }
        return fleet
    }

    func shutdown() async {
        _ = await stopDaemon()
        await observer.close()
        broker.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}
