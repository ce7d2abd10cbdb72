import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The running daemon's claim on a state directory: an exclusive `flock` on `state.lock`,
/// held while this value lives. The kernel drops the lock when the process dies (even by
/// `kill -9`), so a crashed daemon never leaves a stale lock behind.
public final class DaemonLock: Sendable {
    /// The lock file, `state.lock` in the state directory.
    public let path: String
    private let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Whether another holder has the lock at `path`: opens it read-only (creating nothing) and
    /// asks for a shared lock, refused while the daemon's exclusive one is held.
    static func isHeld(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK
    }

    /// Takes the lock without waiting; throws `daemonRunning` when another holder has it
    /// (another process, or another `DaemonLock` in this one).
    static func acquire(_ files: StateFiles) throws(StorageError) -> DaemonLock {
        _ = try files.prepareDirectory()
        let fd = open(files.lock, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw .fileSystem(path: files.lock, reason: StateFiles.errnoText("cannot open the lock file"))
        }
        // A child being spawned by another thread of this process briefly shares the lock
        // file's descriptor until it execs (O_CLOEXEC takes effect at exec), which keeps a lock
        // just released looking held for a few milliseconds; a real holder keeps it far longer.
        var attempts = 0
        while flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK && attempts < 40 {
            attempts += 1
            usleep(5_000)
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            let reason = StateFiles.errnoText("cannot lock")
            close(fd)
            if busy { throw .daemonRunning(lockPath: files.lock) }
            throw .fileSystem(path: files.lock, reason: reason)
        }
        // The pid is for people (`cat state.lock`); the flock is what counts.
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return DaemonLock(path: files.lock, descriptor: fd)
    }
}

extension GatewayDatabase {
    /// Whether a daemon holds `directory` now, asked without taking the lock or creating
    /// anything (`doctor`): a shared lock is refused while the daemon's exclusive one is held.
    public static func isDaemonRunning(in directory: URL) -> Bool {
        DaemonLock.isHeld(StateFiles(directory: directory).lock)
    }

    /// Claims `directory` for a running daemon; `restore` refuses while the lock is held.
    /// Keep the returned value alive for as long as the daemon runs.
    public static func acquireDaemonLock(in directory: URL) throws(StorageError) -> DaemonLock {
        try DaemonLock.acquire(StateFiles(directory: directory))
    }

    /// Claims this database's directory for a running daemon.
    public func acquireDaemonLock() throws(StorageError) -> DaemonLock {
        try DaemonLock.acquire(files)
    }
}
