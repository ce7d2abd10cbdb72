import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Bumble's virtual Bluetooth controllers with Tuya BLE peripherals (`Tests/Python/
/// bumble_tuya_peripheral.py`), in a child process: the central's controller is reachable as
/// H4 over TCP on a free loopback port (`transport`), the peripherals are full Bumble hosts on
/// their own controllers, all joined by Bumble's virtual radio link.
///
/// `start` returns once the rig printed its `ready` line. The rig prints one event per line
/// (`C4:00:00:00:00:01 paired`); `waitForLine` waits for one on the event, bounded by a
/// timeout that only turns a hang into a failure. `send` writes a command (`disconnect ADDR`,
/// `out-of-range ADDR`, `in-range ADDR`, `report ADDR ID TYPE VALUE`). `stop` (or the test
/// process ending, which closes the rig's stdin) ends it; `kill` is the controller vanishing.
public final class BumbleRig: Sendable {
    /// One peripheral, as the rig's `--peripheral` JSON.
    public struct Peripheral: Encodable, Sendable {
        public var address: String
        public var layout: String
        public var uuid: String
        public var localKey: String
        public var devId: String
        public var productID: String
        public var protocolVersion: Int
        /// DP id → [type, value], e.g. `"1": ["bool", true]` written as `.bool(true)`.
        public var dps: [String: DataPointSeed]
        public var bound: Bool
        /// "tuya", or "none" for a device without the Tuya service.
        public var gatt: String
        /// Advertises from a public address (most Tuya devices), else a random static one.
        public var isPublic: Bool

        public init(
            address: String, layout: String = "a201", uuid: String = "uuidA201test0001", localKey: String,
            devId: String = "bf00000000000000000001", productID: String = "abcdefgh", protocolVersion: Int = 3,
            dps: [String: DataPointSeed] = [:], bound: Bool = false, gatt: String = "tuya", isPublic: Bool = false
        ) {
            self.address = address
            self.layout = layout
            self.uuid = uuid
            self.localKey = localKey
            self.devId = devId
            self.productID = productID
            self.protocolVersion = protocolVersion
            self.dps = dps
            self.bound = bound
            self.gatt = gatt
            self.isPublic = isPublic
        }

        enum CodingKeys: String, CodingKey {
            case address, layout, uuid, dps, bound, gatt
            case isPublic = "public"
            case localKey = "local_key"
            case devId = "dev_id"
            case productID = "product_id"
            case protocolVersion = "protocol"
        }
    }

    /// A DP's initial type and value.
    public enum DataPointSeed: Encodable, Sendable {
        case bool(Bool)
        case value(Int)
        case enumeration(Int)
        case string(String)

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            switch self {
            case .bool(let value): try container.encode("bool"); try container.encode(value)
            case .value(let value): try container.encode("value"); try container.encode(value)
            case .enumeration(let value): try container.encode("enum"); try container.encode(value)
            case .string(let value): try container.encode("string"); try container.encode(value)
            }
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String

        public init(description: String) {
            self.description = description
        }
    }

    public let port: Int
    public let pid: pid_t
    /// Where the rig's stderr (Bumble's log) goes, for a failing test to point at.
    public let logPath: String
    private let stdin: Int32
    private let lines: RigOutput
    private let stopped = Mutex(false)

    /// `h4-tcp:127.0.0.1:PORT`, the `ble.transport` value for the rig's central controller.
    public var transport: String { "h4-tcp:127.0.0.1:\(port)" }

    /// Starts the rig and waits for its `ready` line (at most `timeout`).
    public static func start(
        peripherals: [Peripheral], legacyController: Bool = false, aclLength: Int = 27, aclCount: Int = 8,
        timeout: Duration = .seconds(60)
    ) async throws -> BumbleRig {
        let python = try await PythonTools.python()
        var arguments = [PythonTools.script("bumble_tuya_peripheral.py")]
        for peripheral in peripherals {
            let json = try JSONEncoder().encode(peripheral)
            arguments += ["--peripheral", String(decoding: json, as: UTF8.self)]
        }
        if legacyController { arguments.append("--legacy-controller") }
        arguments += ["--acl-length", String(aclLength), "--acl-count", String(aclCount)]
        let logPath = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bumble-rig-\(UUID().uuidString.prefix(8)).log"
        ).path
        let (pid, stdin, stdout) = try spawn(python, arguments, stderrPath: logPath)
        let lines = RigOutput()
        let reader = Thread { lines.read(stdout) }
        reader.name = "bumble rig stdout"
        reader.start()
        guard let ready = await lines.waitForLine(after: 0, timeout: timeout, { $0.hasPrefix("ready port=") }),
            let port = Int(ready.dropFirst("ready port=".count))
        else {
            _ = Glibc.kill(pid, SIGKILL)
            close(stdin)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            throw Failure(description: "the Bumble rig did not start: \(log.suffix(1500))")
        }
        return BumbleRig(pid: pid, stdin: stdin, lines: lines, logPath: logPath, port: port)
    }

    private init(pid: pid_t, stdin: Int32, lines: RigOutput, logPath: String, port: Int) {
        self.pid = pid
        self.stdin = stdin
        self.lines = lines
        self.logPath = logPath
        self.port = port
    }

    /// Every line printed so far.
    public var output: [String] { lines.all }

    /// How many lines have been printed: pass it as `after` to wait only for newer ones.
    public var mark: Int { lines.all.count }

    /// A command for the rig (one line). Never raises SIGPIPE, even after the rig died.
    public func send(_ command: String) {
        let bytes = Array((command + "\n").utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(stdin, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// The first line at index `after` or later matching `predicate`, once printed; nil when the
    /// rig ended or `timeout` passed first.
    public func waitForLine(
        after: Int = 0, timeout: Duration = .seconds(30), _ predicate: @escaping @Sendable (String) -> Bool
    ) async -> String? {
        await lines.waitForLine(after: after, timeout: timeout, predicate)
    }

    /// Waits for `text` in a line after `after`; throws with the rig's output when it does not come.
    @discardableResult
    public func expectLine(containing text: String, after: Int = 0, timeout: Duration = .seconds(30)) async throws
        -> String
    {
        guard let line = await waitForLine(after: after, timeout: timeout, { $0.contains(text) }) else {
            throw Failure(
                description: "the Bumble rig never printed '\(text)'; it printed: "
                    + output.suffix(30).joined(separator: " | "))
        }
        return line
    }

    /// Ends the rig the way a test ends: stdin closes, it exits; waits for it. Idempotent:
    /// after `kill` (which stops) a test's own `stop` must not close the descriptor number
    /// again, which by then may be a socket of a test running beside it.
    public func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        close(stdin)
        // Bounded: if the rig never sees its stdin close (a descriptor leaked into another
        // child keeps the pipe open), it is killed after 10 s instead of blocking this
        // thread, one of the cooperative pool's two on 2 cores, and the whole run, forever.
        var status: Int32 = 0
        for _ in 0..<500 {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped == -1 && errno != EINTR) { return }
            _ = poll(nil, 0, 20)
        }
        _ = Glibc.kill(pid, SIGKILL)
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    }

    /// The controller vanishes at once (SIGKILL): its TCP connection drops mid-whatever.
    public func kill() {
        _ = Glibc.kill(pid, SIGKILL)
        stop()
    }

    /// posix_spawn with stdin and stdout on sockets (stdin written with MSG_NOSIGNAL) and
    /// stderr to a file.
    static func spawn(_ path: String, _ arguments: [String], stderrPath: String) throws -> (pid_t, Int32, Int32) {
        var input: [Int32] = [-1, -1]
        var output: [Int32] = [-1, -1]
        // Close-on-exec from the start, so a child spawned beside this one (tests run in
        // parallel) never inherits our ends: it would hold the rig's stdin open after `stop`.
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &input) == 0, socketpair(AF_UNIX, type, 0, &output) == 0 else {
            throw Failure(description: "pipe: \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // The child gets nothing else of ours: no socket of a test running beside it (a port
        // a test probed and freed for a broker would stay held by the child, and the broker
        // could not listen there).
        if let closeFrom = closeFromAction() {
            _ = closeFrom(&actions, 3)
        } else {
            for fd in input + output { posix_spawn_file_actions_addclose(&actions, fd) }
        }
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, path, &actions, nil, &argv, environ)
        close(input[0])
        close(output[1])
        guard status == 0 else {
            close(input[1])
            close(output[0])
            throw Failure(description: "cannot start \(path): \(String(cString: strerror(status)))")
        }
        _ = fcntl(input[1], F_SETFD, FD_CLOEXEC)
        _ = fcntl(output[0], F_SETFD, FD_CLOEXEC)
        return (pid, input[1], output[0])
    }
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which the Glibc
/// module does not import; nil on an older C library.
private func closeFromAction() -> (
    @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
)? {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
    else { return nil }
    return unsafeBitCast(
        symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32).self)
}

/// A test child's stdout (the Bumble rig's, the tinytuya LAN device's), line by line, and the tests
/// waiting for a line.
final class RigOutput: Sendable {
    private struct Waiter {
        var id: Int
        var predicate: @Sendable (String) -> Bool
        var from: Int
        var continuation: CheckedContinuation<String?, Never>
    }

    private struct State {
        var all: [String] = []
        var ended = false
        var waiters: [Waiter] = []
        var nextID = 0
    }

    private let state = Mutex(State())

    var all: [String] { state.withLock { $0.all } }

    func waitForLine(after: Int, timeout: Duration, _ predicate: @escaping @Sendable (String) -> Bool) async
        -> String?
    {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        // The rig's one deadline (a Dispatch timer) turns a hang into a failure;
        // cancelling the wait hands the waiter nil.
        return try? await withDeadline(timeout, "a line from the Bumble rig") {
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let found = self.state.withLock { state -> String?? in
                        if let line = state.all.dropFirst(after).first(where: predicate) { return .some(line) }
                        // Checked under the lock `resolve` takes: a cancel either finds the
                        // waiter or is seen here, never missed in between.
                        if state.ended || Task.isCancelled { return .some(nil) }
                        state.waiters.append(
                            Waiter(id: id, predicate: predicate, from: after, continuation: continuation))
                        return nil
                    }
                    if let found { continuation.resume(returning: found) }
                }
            } onCancel: {
                self.resolve(id, with: nil)
            }
        } ?? nil
    }

    private func resolve(_ id: Int, with line: String?) {
        let waiter = state.withLock { state -> CheckedContinuation<String?, Never>? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index).continuation
        }
        waiter?.resume(returning: line)
    }

    /// Reads `fd` to its end on the calling thread, handing each line to its waiters.
    func read(_ fd: Int32) {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            pending += buffer[0..<count]
            while let newline = pending.firstIndex(of: 0x0A) {
                received(String(decoding: pending[..<newline], as: UTF8.self))
                pending.removeFirst(newline + 1)
            }
        }
        close(fd)
        let waiting = state.withLock { state -> [Waiter] in
            state.ended = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiting { waiter.continuation.resume(returning: nil) }
    }

    private func received(_ line: String) {
        let matched = state.withLock { state -> [Waiter] in
            state.all.append(line)
            let index = state.all.count - 1
            let matched = state.waiters.filter { index >= $0.from && $0.predicate(line) }
            state.waiters.removeAll { index >= $0.from && $0.predicate(line) }
            return matched
        }
        for waiter in matched { waiter.continuation.resume(returning: line) }
    }
}
