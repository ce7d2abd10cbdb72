#if canImport(Glibc)
    import Glibc
#endif

/// A child process started with `posix_spawn`. Foundation's `Process` was seen to crash
/// (a bad memcpy inside `run()`) when a test started a broker while another test was
/// opening and closing ~1,400 descriptors; `posix_spawn` does the fork/exec in libc with
/// no Swift code in the child.
public struct ChildProcess: Sendable {
    public let pid: pid_t

    /// Starts `path` with `arguments`; stdin is /dev/null and stdout/stderr are appended to
    /// `outputPath` (or /dev/null).
    /// `environment` nil inherits this process's environment.
    public static func spawn(
        _ path: String, _ arguments: [String], outputPath: String? = nil, environment: [String: String]? = nil
    ) throws -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var envp: [UnsafeMutablePointer<CChar>?]? = environment.map { env in
            env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        defer { envp?.forEach { free($0) } }
        var pid: pid_t = 0
        let status: Int32
        if envp != nil {
            status = posix_spawn(&pid, path, &actions, nil, &argv, &envp!)
        } else {
            status = posix_spawn(&pid, path, &actions, nil, &argv, environ)
        }
        guard status == 0 else {
            throw LocalBrokerError(message: "cannot start \(path): \(String(cString: strerror(status)))")
        }
        return ChildProcess(pid: pid)
    }

    /// Starts `path` with its stdout on a pipe; returns the child and the pipe's read end
    /// (the caller reads it with `readLine`-style loops and closes it). stderr goes to /dev/null.
    public static func spawnWithOutputPipe(_ path: String, _ arguments: [String]) throws -> (ChildProcess, Int32) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw LocalBrokerError(message: "pipe: \(String(cString: strerror(errno)))") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        posix_spawn_file_actions_addclose(&actions, fds[1])
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, path, &actions, nil, &argv, environ)
        close(fds[1])
        guard status == 0 else {
            close(fds[0])
            throw LocalBrokerError(message: "cannot start \(path): \(String(cString: strerror(status)))")
        }
        return (ChildProcess(pid: pid), fds[0])
    }

    /// Reads what is available on `fd` (blocking until something is), retrying when a
    /// signal interrupts; empty at end of file.
    public static func read(_ fd: Int32, maximum: Int = 65_536) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maximum)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count >= 0 { return Array(buffer[0..<count]) }
            if errno != EINTR { return [] }
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

    /// Waits for the child and returns its exit status, or nil when a signal ended it.
    public func waitForExit() -> Int32? {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : nil
    }

    /// What `run` collected.
    public struct Output: Sendable {
        /// The exit status, or nil when a signal ended the process.
        public var status: Int32?
        public var stdout: String
        public var stderr: String
    }

    /// Runs `path` to completion with `environment` (nil: inherit), collecting stdout and
    /// stderr through pipes read with `poll` (so neither pipe can fill and stall the child)
    /// and retrying reads a signal interrupted.
    public static func run(_ path: String, _ arguments: [String], environment: [String: String]? = nil) throws
        -> Output
    {
        var outPipe: [Int32] = [-1, -1]
        var errPipe: [Int32] = [-1, -1]
        guard pipe(&outPipe) == 0, pipe(&errPipe) == 0 else {
            throw LocalBrokerError(message: "pipe: \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        for fd in outPipe + errPipe { posix_spawn_file_actions_addclose(&actions, fd) }
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var envp: [UnsafeMutablePointer<CChar>?]? = environment.map { env in
            env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        defer { envp?.forEach { free($0) } }
        var pid: pid_t = 0
        let status: Int32
        if envp != nil {
            status = posix_spawn(&pid, path, &actions, nil, &argv, &envp!)
        } else {
            status = posix_spawn(&pid, path, &actions, nil, &argv, environ)
        }
        close(outPipe[1])
        close(errPipe[1])
        guard status == 0 else {
            close(outPipe[0])
            close(errPipe[0])
            throw LocalBrokerError(message: "cannot start \(path): \(String(cString: strerror(status)))")
        }
        var collected: [Int32: [UInt8]] = [outPipe[0]: [], errPipe[0]: []]
        var open = [outPipe[0], errPipe[0]]
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !open.isEmpty {
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if poll(&fds, nfds_t(fds.count), -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            for entry in fds where entry.revents != 0 {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(entry.fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    collected[entry.fd, default: []].append(contentsOf: buffer[0..<count])
                } else if count == 0 || errno != EINTR {
                    close(entry.fd)
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
        let exit = ChildProcess(pid: pid).waitForExit()
        return Output(
            status: exit, stdout: String(decoding: collected[outPipe[0]] ?? [], as: UTF8.self),
            stderr: String(decoding: collected[errPipe[0]] ?? [], as: UTF8.self))
    }
}
