import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A Tuya LAN device made of tinytuya's own code (`Tests/Python/tinytuya_device_server.py`,
/// tinytuya from the private venv), in a child process listening on TCP 6668 of a loopback
/// address of its own, as a real device on a real network: every frame it reads or writes
/// goes through tinytuya's `message_helper` and `AESCipher`, and its 3.4/3.5 session key is
/// derived by tinytuya's own client code.
///
/// `start` returns once it printed its `ready` line. It prints one event per line
/// (`connected`, `established`, `request 13`, `applied {"1":true}`, `rejected 7 …`, `closed`);
/// `expectLine` waits for one. `stop` (or the test process ending, which closes the device's
/// stdin) ends it.
public final class TinyTuyaLANDevice: Sendable {
    public let ip: String
    public let devId: String
    public let localKey: String
    public let version: String
    private let pid: pid_t
    private let stdin: Int32
    private let lines: RigOutput
    private let logPath: String
    private let stopped = Mutex(false)

    /// Starts a device answering with `dps` (JSON values by DP id), waiting for it to listen.
    public static func start(
        devId: String, localKey: String, version: String, dps: [String: Any], ip: String = LANTestAddress.unique(),
        port: Int = 6668,
        timeout: Duration = .seconds(30)
    ) async throws -> TinyTuyaLANDevice {
        let python = try await PythonTools.python()
        let dpsJSON = String(decoding: try JSONSerialization.data(withJSONObject: dps), as: UTF8.self)
        let arguments = [
            PythonTools.script("tinytuya_device_server.py"), "--ip", ip, "--port", String(port), "--id", devId,
            "--key", localKey, "--version", version, "--dps", dpsJSON,
        ]
        let logPath = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tinytuya-device-\(UUID().uuidString.prefix(8)).log"
        ).path
        let (pid, stdin, stdout) = try BumbleRig.spawn(python, arguments, stderrPath: logPath)
        let lines = RigOutput()
        let reader = Thread { lines.read(stdout) }
        reader.name = "tinytuya device stdout"
        reader.start()
        let device = TinyTuyaLANDevice(
            ip: ip, devId: devId, localKey: localKey, version: version, pid: pid, stdin: stdin, lines: lines,
            logPath: logPath)
        guard await lines.waitForLine(after: 0, timeout: timeout, { $0.hasPrefix("ready ") }) != nil else {
            _ = Glibc.kill(pid, SIGKILL)
            device.stop()
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            throw BumbleRig.Failure(description: "the tinytuya device did not start: \(log.suffix(1500))")
        }
        return device
    }

    private init(
        ip: String, devId: String, localKey: String, version: String, pid: pid_t, stdin: Int32, lines: RigOutput,
        logPath: String
    ) {
        self.ip = ip
        self.devId = devId
        self.localKey = localKey
        self.version = version
        self.pid = pid
        self.stdin = stdin
        self.lines = lines
        self.logPath = logPath
    }

    /// Every line printed so far.
    public var output: [String] { lines.all }

    /// Waits for a line containing `text`; throws with the device's output and log when it
    /// does not come within `timeout` (which only turns a hang into a failure).
    @discardableResult
    public func expectLine(containing text: String, after: Int = 0, timeout: Duration = .seconds(20)) async throws
        -> String
    {
        guard let line = await lines.waitForLine(after: after, timeout: timeout, { $0.contains(text) }) else {
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            throw BumbleRig.Failure(
                description: "the tinytuya device never printed '\(text)'; it printed: "
                    + output.suffix(30).joined(separator: " | ") + "; stderr: \(log.suffix(1500))")
        }
        return line
    }

    /// Ends the device at once and waits for it. Idempotent.
    public func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        close(stdin)
        // It keeps nothing worth a graceful end; a kill never leaves a test waiting on it.
        _ = Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        try? FileManager.default.removeItem(atPath: logPath)
    }
}

/// Loopback addresses for one LAN device each (TCP 6668 of its own, as on a real network).
public enum LANTestAddress {
    private static let handedOut = Mutex<Set<String>>([])

    /// 127.x.y.1 with x in 40–49: outside the ranges the other LAN suites pick their fleets'
    /// bases from, and never the same twice in this process. A fleet of one device may use it
    /// as its base address.
    public static func unique() -> String {
        while true {
            let candidate = "127.\(Int.random(in: 40...49)).\(Int.random(in: 1...250)).1"
            if handedOut.withLock({ $0.insert(candidate).inserted }) { return candidate }
        }
    }
}
