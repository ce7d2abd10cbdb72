import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The files of one state directory and the POSIX permission rules they follow:
/// the directory 0700, the database and its -wal/-shm companions 0600, because the
/// database holds every device's local key.
struct StateFiles: Sendable {
    static let databaseName = "state.sqlite"
    static let lockName = "state.lock"

    let directory: URL

    var database: String { directory.appendingPathComponent(Self.databaseName).path }
    var wal: String { database + "-wal" }
    var shm: String { database + "-shm" }
    var lock: String { directory.appendingPathComponent(Self.lockName).path }

    /// Whether `path` names the database, its -wal or -shm, or the lock, through any symbolic
    /// link or `..` (the same file, or the same name in the same directory for one not there yet:
    /// a backup written as `state.sqlite-wal` would be read as the journal).
    func isOwnFile(_ path: String) -> Bool {
        let own = [database, wal, shm, lock]
        var target = stat()
        if stat(path, &target) == 0 {
            for file in own {
                var info = stat()
                if stat(file, &info) == 0, info.st_dev == target.st_dev, info.st_ino == target.st_ino { return true }
            }
        }
        let url = URL(fileURLWithPath: path)
        guard let folder = Self.realPath(url.deletingLastPathComponent().path),
            let stateFolder = Self.realPath(directory.path)
        else { return false }
        return folder == stateFolder
            && own.contains { URL(fileURLWithPath: $0).lastPathComponent == url.lastPathComponent }
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Creates the directory (and missing parents) as 0700, or tightens an existing one
    /// that others can read. Returns a notice for each repair so the daemon can log it.
    func prepareDirectory() throws(StorageError) -> [String] {
        let path = directory.path
        var info = stat()
        if stat(path, &info) != 0 {
            guard errno == ENOENT else { throw .fileSystem(path: path, reason: Self.errnoText("stat")) }
            let parent = directory.deletingLastPathComponent()
            if parent.path != path, !FileManager.default.fileExists(atPath: parent.path) {
                _ = try StateFiles(directory: parent).prepareDirectory()
            }
            guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
                throw .fileSystem(path: path, reason: Self.errnoText("cannot create the state directory"))
            }
            // mkdir applies the umask, which can only narrow 0700, but chmod states the intent.
            _ = chmod(path, 0o700)
            return []
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw .fileSystem(path: path, reason: "exists but is not a directory; move it away")
        }
        return try tighten(path, to: 0o700, mode: info.st_mode, what: "state directory")
    }

    /// Creates the database file 0600 before SQLite opens it (SQLite gives -wal and -shm
    /// the database file's mode), or tightens existing files.
    func prepareDatabaseFiles() throws(StorageError) -> [String] {
        var notices: [String] = []
        let fd = open(database, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd >= 0 {
            close(fd)
        } else if errno != EEXIST {
            throw .fileSystem(path: database, reason: Self.errnoText("cannot create the database file"))
        }
        for path in [database, wal, shm] {
            var info = stat()
            guard stat(path, &info) == 0 else { continue }
            notices += try tighten(path, to: 0o600, mode: info.st_mode, what: "file")
        }
        return notices
    }

    /// A non-empty file that does not start with SQLite's magic header is refused before
    /// SQLite sees it, so nothing can write to it.
    func checkHeader(of path: String, hint: String) throws(StorageError) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        guard !header.isEmpty else { return }
        guard header == Data("SQLite format 3\0".utf8) else { throw .corrupt(path: path, hint: hint) }
    }

    private func tighten(_ path: String, to wanted: mode_t, mode: mode_t, what: String) throws(StorageError) -> [String]
    {
        let current = mode & 0o777
        guard current & ~wanted != 0 else { return [] }
        guard chmod(path, wanted) == 0 else {
            throw .insecurePermissions(
                path: path, mode: Self.octal(current),
                hint: "run chmod \(Self.octal(wanted)) \(path) as its owner")
        }
        return ["\(what) \(path) had mode \(Self.octal(current)); tightened to \(Self.octal(wanted))"]
    }

    static func octal(_ mode: mode_t) -> String { "0" + String(mode & 0o777, radix: 8) }

    static func errnoText(_ what: String) -> String { "\(what): \(String(cString: strerror(errno)))" }

    /// Flushes a directory entry change (a rename) to disk.
    static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }
}
