import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A private `mosquitto` on 127.0.0.1 and a free port, configured in its own temporary
/// directory: what the tests, the demo and the benchmarks talk to, never a shared or a
/// fixed-port broker. `stop()` (also run on deinit) kills it; `start()` again reuses the
/// port, which is how tests restart "the same broker".
///
/// The configuration sets `set_tcp_nodelay true`: with Nagle on, a QoS-1 round trip
/// stalls ~40 ms on delayed ACKs (INTEROP.md).
public final class LocalBroker: Sendable {
    public struct Credentials: Sendable {
        public var username: String
        public var password: String

        public init(username: String, password: String) {
            self.username = username
            self.password = password
        }
    }

    public struct TLSFiles: Sendable {
        public var caFile: String
        public var certFile: String
        public var keyFile: String

        public init(caFile: String, certFile: String, keyFile: String) {
            self.caFile = caFile
            self.certFile = certFile
            self.keyFile = keyFile
        }
    }

    /// The listener's port. Chosen at `init`; a later `start()` reuses it.
    public var port: Int { ports.withLock { $0.main } }
    /// The anonymous plain-TCP listener next to `port`, when asked for (`plainListener`).
    public var plainPort: Int? { ports.withLock { $0.plain } }
    public let directory: URL
    private let process = Mutex<ChildProcess?>(nil)
    private let ports: Mutex<(main: Int, plain: Int?)>

    /// Writes the configuration and starts the broker; returns once it accepts connections.
    ///
    /// `credentials` and `tls` apply to the listener on `port`. With `plainListener` the
    /// broker also listens on `plainPort` without TLS and without a password
    /// (`per_listener_settings true`): one broker for simulated devices, which speak plain
    /// MQTT, and a gateway that must use TLS and a password.
    public init(
        credentials: Credentials? = nil, tls: TLSFiles? = nil, plainListener: Bool = false,
        extraConfiguration: [String] = []
    ) throws {
        ports = Mutex(try Self.choosePorts(plain: plainListener))
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("youll-broker-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // A free port can still be taken between the check and mosquitto's bind (another
        // test process picking the same one): then choose again, a few times.
        var attempt = 1
        while true {
            try writeConfiguration(credentials: credentials, tls: tls, extra: extraConfiguration)
            do {
                try start()
                return
            } catch let error as LocalBrokerError where error.addressInUse && attempt < 5 {
                attempt += 1
                try? FileManager.default.removeItem(atPath: logPath)
                let fresh = try Self.choosePorts(plain: plainListener)
                ports.withLock { $0 = fresh }
            }
        }
    }

    /// `init` for async callers: the broker is started, and waited for, on a thread of its
    /// own. Launching mosquitto and polling its port until it accepts takes tens of
    /// milliseconds, seconds on a loaded machine; done on one of the cooperative pool's
    /// threads (two on a 2-core machine) it stalls every other task of the process.
    public static func started(
        credentials: Credentials? = nil, tls: TLSFiles? = nil, plainListener: Bool = false,
        extraConfiguration: [String] = []
    ) async throws -> LocalBroker {
        try await offPool(named: "local broker start") {
            try LocalBroker(
                credentials: credentials, tls: tls, plainListener: plainListener,
                extraConfiguration: extraConfiguration)
        }
    }

    /// `start()` for async callers, off the cooperative pool (see `started`).
    public func restart() async throws {
        try await offPool(named: "local broker start") { try self.start() }
    }

    private static func choosePorts(plain: Bool) throws -> (main: Int, plain: Int?) {
        let main = try freeLoopbackPort()
        guard plain else { return (main, nil) }
        var candidate = try freeLoopbackPort()
        while candidate == main { candidate = try freeLoopbackPort() }
        return (main, candidate)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    public var url: String { "mqtt://127.0.0.1:\(port)" }
    /// `mqtt://127.0.0.1:<plainPort>`, when there is a plain listener.
    public var plainURL: String? { plainPort.map { "mqtt://127.0.0.1:\($0)" } }
    public var configPath: String { directory.appendingPathComponent("mosquitto.conf").path }
    public var logPath: String { directory.appendingPathComponent("broker.log").path }

    /// Launches the broker and returns once it accepts TCP connections.
    public func start() throws {
        let executable = try Self.mosquittoPath()
        let launched = try ChildProcess.spawn(executable, ["-c", configPath], outputPath: logPath)
        process.withLock { $0 = launched }
        guard Self.waitUntilAccepting(port: port, attempts: 500, while: launched),
            plainPort.map({ Self.waitUntilAccepting(port: $0, attempts: 500, while: launched) }) ?? true
        else {
            stop()
            let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            throw LocalBrokerError(
                message: "mosquitto did not start on 127.0.0.1:\(port): \(text)",
                addressInUse: text.contains("Address already in use"))
        }
    }

    /// Kills the broker with SIGKILL (no goodbye to clients, as in a crash) and waits.
    public func stop() {
        let running = process.withLock { current -> ChildProcess? in
            defer { current = nil }
            return current
        }
        running?.kill()
    }

    /// SIGSTOP: the broker keeps its sockets but answers nothing until `resume()`, as a
    /// hung broker would.
    public func pause() {
        process.withLock { current in if let current { _ = kill(current.pid, SIGSTOP) } }
    }

    /// SIGCONT after `pause()`.
    public func resume() {
        process.withLock { current in if let current { _ = kill(current.pid, SIGCONT) } }
    }

    public var isRunning: Bool { process.withLock { $0?.isRunning ?? false } }

    /// The broker's process id while it runs (benchmarks read its CPU time in /proc).
    public var pid: pid_t? { process.withLock { $0?.pid } }

    private func writeConfiguration(credentials: Credentials?, tls: TLSFiles?, extra: [String]) throws {
        // Security settings follow the listener they belong to; with a second listener they
        // are per listener, which mosquitto wants declared before any of them.
        var lines = plainPort == nil ? [] : ["per_listener_settings true"]
        lines += [
            "set_tcp_nodelay true",
            "persistence false",
            "log_dest stderr",
            "log_type error",
            "log_type warning",
            "max_queued_messages 100000",
        ]
        if getuid() == 0 { lines.append("user root") }
        lines.append("listener \(port) 127.0.0.1")
        if let credentials {
            let file = directory.appendingPathComponent("passwords").path
            try Self.run(
                Self.toolPath("mosquitto_passwd"), ["-b", "-c", file, credentials.username, credentials.password])
            lines += ["allow_anonymous false", "password_file \(file)"]
        } else {
            lines.append("allow_anonymous true")
        }
        if let tls {
            lines += ["cafile \(tls.caFile)", "certfile \(tls.certFile)", "keyfile \(tls.keyFile)"]
        }
        if let plainPort { lines += ["listener \(plainPort) 127.0.0.1", "allow_anonymous true"] }
        lines += extra
        try (lines.joined(separator: "\n") + "\n").write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    static func mosquittoPath() throws -> String {
        try toolPath("mosquitto")
    }

    static func toolPath(_ name: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/bin", "/usr/local/sbin"]
        for directory in candidates {
            let full = directory + "/" + name
            if FileManager.default.isExecutableFile(atPath: full) { return full }
        }
        throw LocalBrokerError(message: "\(name) not found: install the Debian package mosquitto (scripts/bootstrap)")
    }

    /// Runs a tool (openssl, mosquitto_passwd) to completion; fails unless it exits 0.
    public static func run(_ tool: String, _ arguments: [String]) throws {
        let status = try ChildProcess.spawn(tool, arguments).waitForExit()
        guard status == 0 else {
            throw LocalBrokerError(message: "\(tool) exited with status \(status.map(String.init) ?? "signal")")
        }
    }

    /// A port on 127.0.0.1 that nothing is bound to, below the kernel's ephemeral range
    /// (`net.ipv4.ip_local_port_range`) when there is room there: ports in that range are
    /// handed to every outgoing connection and to every `bind(0)`, so one chosen from it
    /// can be taken by another test's client before the broker binds it. Each port is
    /// handed out once per process. Falls back to the kernel's choice (`bind` port 0).
    public static func freeLoopbackPort() throws -> Int {
        let low = 10_000
        let high = (ephemeralRangeStart() ?? 0) - 1
        if high - low >= 1_000 {
            for _ in 0..<200 {
                let candidate = Int.random(in: low...high)
                guard handedOut.withLock({ $0.insert(candidate).inserted }) else { continue }
                if (try? bindLoopback(port: candidate)) == candidate { return candidate }
            }
        }
        return try bindLoopback(port: 0)
    }

    private static let handedOut = Mutex<Set<Int>>([])

    private static func ephemeralRangeStart() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8),
            let first = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first
        else { return nil }
        return Int(first)
    }

    /// Binds `port` (0: the kernel chooses) on 127.0.0.1, reads the bound port, closes.
    private static func bindLoopback(port: Int) throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LocalBrokerError(message: "socket: errno \(errno)") }
        defer { close(fd) }
        var address = loopback(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw LocalBrokerError(message: "bind: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Retries a TCP connect with a 10 ms `poll` between attempts until the broker
    /// process accepts: waiting on another process to come up, bounded by `attempts`,
    /// and given up at once when that process has exited (it could not bind).
    static func waitUntilAccepting(port: Int, attempts: Int, while process: ChildProcess) -> Bool {
        for _ in 0..<attempts {
            guard process.isRunning else { return false }
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = loopback(port: port)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            close(fd)
            if connected == 0 { return true }
            _ = poll(nil, 0, 10)
        }
        return false
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}

/// Why a private broker could not be started.
public struct LocalBrokerError: Error, CustomStringConvertible, Sendable {
    public var message: String
    /// mosquitto exited because its port was taken.
    public var addressInUse: Bool

    public init(message: String, addressInUse: Bool = false) {
        self.message = message
        self.addressInUse = addressInUse
    }

    public var description: String { message }
}
