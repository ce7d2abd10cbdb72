import Foundation
import Subprocess
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// A child process that outlives the call that started it: the mosquitto a synchronous
/// `LocalBroker()` starts and a later `stop()` ends, the daemon a CLI test starts and
/// signals later, a benchmark's server.
///
/// Hand-written on `posix_spawn` for that one feature, which swift-subprocess 1.0.2 does
/// not have: it ties every child to the scope of its `run` closure and ends it when the
/// closure returns ("a spawned child outlives the call that started it" in
/// ChildProcessTests shows the use). Everything that runs within one call, collecting or
/// streaming its output, goes through swift-subprocess (`run`, `streamingLines`).
/// `posix_spawn` does the fork/exec in libc with no Swift code in the child (Foundation's
/// `Process` was seen to crash while another test opened and closed ~1,400 descriptors).
public struct ChildProcess: Sendable {
    public let pid: pid_t

    /// Starts `path` with `arguments`; stdin is /dev/null and stdout/stderr are appended to
    /// `outputPath` (or /dev/null). `environment` nil inherits this process's environment.
    /// The child keeps no other descriptor of this process: NIO's sockets and many a test's
    /// files are not close-on-exec, and a mosquitto holding a test's socket keeps it open.
    public static func spawn(
        _ path: String, _ arguments: [String], outputPath: String? = nil, environment: [String: String]? = nil
    ) throws -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        try closeFrom(3, &actions)
        // The child starts with no signal blocked and every signal at its default, whatever
        // the spawning thread had (a runtime thread may block SIGTERM, and the child would
        // not stop).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var envp: [UnsafeMutablePointer<CChar>?]? = environment.map { env in
            env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        defer { envp?.forEach { free($0) } }
        var pid: pid_t = 0
        let status: Int32
        if envp != nil {
            status = posix_spawn(&pid, path, &actions, &attributes, &argv, &envp!)
        } else {
            status = posix_spawn(&pid, path, &actions, &attributes, &argv, environ)
        }
        guard status == 0 else {
            throw LocalBrokerError(message: "cannot start \(path): \(String(cString: strerror(status)))")
        }
        return ChildProcess(pid: pid)
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), looked up at run
    /// time because Swift's Glibc module leaves out the `_GNU_SOURCE` declarations.
    private static let addCloseFrom:
        (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32)? = {
            guard let handle = dlopen(nil, RTLD_NOW),
                let symbol = dlsym(handle, "posix_spawn_file_actions_addclosefrom_np")
            else { return nil }
            return unsafeBitCast(
                symbol,
                to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32).self)
        }()

    /// Adds "close every descriptor from `first` up" to `actions`.
    private static func closeFrom(_ first: Int32, _ actions: inout posix_spawn_file_actions_t) throws {
        guard let addCloseFrom else {
            throw LocalBrokerError(
                message:
                    "this C library has no posix_spawn_file_actions_addclosefrom_np, so a child would inherit "
                    + "open descriptors; glibc 2.34 or later is needed")
        }
        let status = addCloseFrom(&actions, first)
        guard status == 0 else {
            throw LocalBrokerError(
                message: "posix_spawn_file_actions_addclosefrom_np: \(String(cString: strerror(status)))")
        }
    }

    /// Whether the child has not exited yet (reaps it if it has).
    public var isRunning: Bool {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == 0
    }

    /// Sends `signal` (SIGTERM, SIGINT) without waiting.
    public func signal(_ signal: Int32) {
        _ = Glibc.kill(pid, signal)
    }

    /// SIGKILL, then waits for the exit.
    public func kill() {
        _ = Glibc.kill(pid, SIGKILL)
        _ = waitForExit()
    }

    /// `waitForExit()` for async callers: the blocking `waitpid` runs on a thread of its
    /// own, never on one of the cooperative pool's (two on a 2-core machine), where a child
    /// taking seconds to shut down would stall every other task of the process.
    public func exitStatus() async -> Int32? {
        await offPool(named: "wait for pid \(pid)") { waitForExit() }
    }

    /// How a bounded wait for the child ended.
    public enum BoundedExit: Sendable, Equatable {
        /// It exited: its exit status, nil when a signal ended it.
        case exited(status: Int32?)
        /// It was still running when the wait ended.
        case stillRunning
    }

    /// `exitStatus()` for at most `limit`: a child that should stop on a signal and does not
    /// (a hung daemon) is reported instead of holding its caller for ever. Looks every 10 ms,
    /// on a thread of its own.
    public func exit(within limit: Duration) async -> BoundedExit {
        await offPool(named: "wait for pid \(pid)") {
            let deadline = ContinuousClock.now + limit
            var status: Int32 = 0
            while true {
                switch waitpid(pid, &status, WNOHANG) {
                case pid: return .exited(status: Self.decode(status))
                case -1 where errno != EINTR: return .exited(status: nil)
                default: break
                }
                if ContinuousClock.now >= deadline { return .stillRunning }
                _ = poll(nil, 0, 10)
            }
        }
    }

    /// Waits for the child and returns its exit status, or nil when a signal ended it.
    public func waitForExit() -> Int32? {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return Self.decode(status)
    }

    /// The exit status in a `waitpid` status, nil when a signal ended the child.
    private static func decode(_ status: Int32) -> Int32? {
        status & 0x7F == 0 ? (status >> 8) & 0xFF : nil
    }
}

extension ChildProcess {
    /// What `run` collected.
    public struct Output: Sendable {
        /// The exit status, or nil when a signal ended the process.
        public var status: Int32?
        public var stdout: String
        public var stderr: String
    }

    /// Runs `path` to completion with `environment` (nil: inherit), collecting stdout and
    /// stderr (up to `limit` bytes each) through swift-subprocess.
    public static func run(
        _ path: String, _ arguments: [String], environment: [String: String]? = nil, limit: Int = 16 << 20
    ) async throws -> Output {
        let result = try await Subprocess.run(
            .path(FilePath(path)), arguments: Arguments(arguments), environment: Self.environment(environment),
            output: .string(limit: limit), error: .string(limit: limit))
        return Output(
            status: Self.exitStatus(result.terminationStatus), stdout: result.standardOutput,
            stderr: result.standardError)
    }

    /// A child whose stdout is read line by line while `body` runs (stderr is dropped);
    /// `body` may signal it. Returns what `body` returned and the child's exit status (nil
    /// when a signal ended it), once the child has exited.
    public static func streamingLines<T: Sendable>(
        _ path: String, _ arguments: [String], environment: [String: String]? = nil,
        _ body: (_ lines: LineReader, _ signal: (Int32) throws -> Void) async throws -> T
    ) async throws -> (value: T, status: Int32?) {
        let result = try await Subprocess.run(
            .path(FilePath(path)), arguments: Arguments(arguments), environment: Self.environment(environment),
            input: .none, output: .sequence, error: .discarded
        ) { execution in
            let lines = LineReader(execution.standardOutput.strings())
            let value = try await body(lines) { number in try execution.send(signal: Signal(rawValue: number)) }
            // Whatever the body left unread is drained, so the child never blocks on a full pipe.
            while try await lines.next() != nil {}
            return value
        }
        return (result.closureResult, Self.exitStatus(result.terminationStatus))
    }

    private static func environment(_ values: [String: String]?) -> Subprocess.Environment {
        guard let values else { return .inherit }
        return .custom(
            Dictionary(
                uniqueKeysWithValues: values.compactMap { key, value in
                    Subprocess.Environment.Key(rawValue: key).map { ($0, value) }
                }))
    }

    private static func exitStatus(_ status: TerminationStatus) -> Int32? {
        if case .exited(let code) = status { return code }
        return nil
    }
}

/// The lines of a streaming child's stdout, read one at a time.
public final class LineReader {
    private var iterator: SubprocessOutputSequence.StringSequence<UTF8>.AsyncIterator

    init(_ lines: SubprocessOutputSequence.StringSequence<UTF8>) {
        iterator = lines.makeAsyncIterator()
    }

    /// The next line without its separator; nil at the end of the output.
    public func next() async throws -> String? {
        try await iterator.next()
    }
}

/// Runs blocking `work` on a thread of its own and returns its result: for async callers of
/// process and socket waits, which must not hold one of the cooperative pool's threads (two
/// on a 2-core machine) for as long as the wait takes.
func offPool<T: Sendable, Failure: Error>(
    named name: String, _ work: @escaping @Sendable () throws(Failure) -> T
) async throws(Failure) -> T {
    let result: Result<T, Failure> = await withCheckedContinuation { continuation in
        let thread = Thread {
            do throws(Failure) {
                continuation.resume(returning: .success(try work()))
            } catch {
                continuation.resume(returning: .failure(error))
            }
        }
        thread.name = name
        thread.start()
    }
    return try result.get()
}
