import Foundation
import GRDB

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension GatewayDatabase {
    /// Writes a consistent copy of the live database to `destination` (mode 0600) with
    /// SQLite's online backup, while the daemon keeps writing. The copy is a single file
    /// (rollback journal, no -wal). It appears under its name only when complete; an
    /// existing file is refused unless `overwrite` is set.
    public func backup(to destination: URL, overwrite: Bool = false) throws(StorageError) {
        try Self.writeBackup(from: pool, of: files, to: destination, overwrite: overwrite)
    }

    /// Copies `source`, the database of `files`, to `destination`: never over the live state's
    /// own files, nor over an existing file unless `overwrite`; under its name once complete.
    private static func writeBackup(
        from source: any DatabaseReader, of files: StateFiles, to destination: URL, overwrite: Bool
    ) throws(StorageError) {
        let target = destination.path
        if files.isOwnFile(target) { throw .backupOverLiveState(path: target) }
        if !overwrite, FileManager.default.fileExists(atPath: target) { throw .backupExists(path: target) }
        let temporary = try createTemporary(near: target)
        do {
            try copy(from: source, toFileAt: temporary, operation: "backing up to \(target)")
            try publish(temporary, as: target, overwrite: overwrite)
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// `backup(to:overwrite:)` for a process that is not the daemon (`youll-devices backup`):
    /// the state in `directory` is read as it is, never migrated. Opening it the way the
    /// daemon does would upgrade the live file under a daemon still running the older
    /// version (between an install and its restart), and that version would then refuse it.
    /// A file from a newer version is copied as it is.
    public static func backup(directory: URL, to destination: URL, overwrite: Bool = false) throws(StorageError) {
        let files = StateFiles(directory: directory)
        try files.checkHeader(of: files.database, hint: "it is not a youll-devices state database")
        let source: DatabaseQueue
        do {
            source = try DatabaseQueue(path: files.database, configuration: configuration())
            let application = try source.read { db in try Int32.fetchOne(db, sql: "PRAGMA application_id") }
            guard application == Schema.applicationID else {
                throw StorageError.corrupt(path: files.database, hint: "it is not a youll-devices state database")
            }
        } catch let error as StorageError {
            throw error
        } catch {
            throw mapped(error, path: files.database, operation: "opening the state to back it up")
        }
        defer { try? source.close() }
        try writeBackup(from: source, of: files, to: destination, overwrite: overwrite)
    }

    /// Replaces the state in `directory` with a backup, refusing while a daemon holds the
    /// lock. The backup is checked first (a youll-devices database, `integrity_check` ok,
    /// schema not newer than this binary); if anything is wrong the live state is untouched.
    /// The swap is a rename in the same directory, so a crash leaves the old or the new
    /// state, never a mix. The state it replaced stays beside it as
    /// `state.sqlite.replaced-<UTC time>` (a hard link: no copy); its path is returned (nil
    /// when there was no state).
    @discardableResult
    public static func restore(from backup: URL, into directory: URL, now: Date = Date()) throws(StorageError)
        -> URL?
    {
        let files = StateFiles(directory: directory)
        let lock = try DaemonLock.acquire(files)
        defer { withExtendedLifetime(lock) {} }
        let source = try validatedBackup(backup)
        let temporary = try createTemporary(near: files.database)
        do {
            try copy(from: source, toFileAt: temporary, operation: "restoring from \(backup.path)")
        } catch {
            unlink(temporary)
            throw error
        }
        if let owner = restoredOwner(euid: geteuid(), directory: files.directory.path) {
            // Run as root (`sudo youll-devices restore`) for a service running as its own user:
            // a root-owned state file would stop the service from starting.
            _ = chown(temporary, owner.uid, owner.gid)
            // The lock this restore created, if there was none, is the service's to take next.
            _ = chown(files.lock, owner.uid, owner.gid)
        }
        checkpointLiveDatabase(files)
        let kept = try keepReplaced(files, now: now, temporary: temporary)
        // Their pages belong to the old database; applied to the new one they would corrupt it.
        unlink(files.wal)
        unlink(files.shm)
        guard posixRename(temporary, files.database) == 0 else {
            let reason = StateFiles.errnoText("cannot replace the state file")
            unlink(temporary)
            if let kept { unlink(kept.path) }
            throw .fileSystem(path: files.database, reason: reason)
        }
        StateFiles.syncDirectory(files.directory.path)
        return kept
    }

    /// Who should own a restored state file: the state directory's owner, when root restores
    /// into a directory another user owns; nil otherwise (the file stays the restorer's).
    static func restoredOwner(euid: uid_t, directory: String) -> (uid: uid_t, gid: gid_t)? {
        var info = stat()
        guard euid == 0, stat(directory, &info) == 0, info.st_uid != 0 else { return nil }
        return (info.st_uid, info.st_gid)
    }

    /// A second name for the live database (checkpointed), kept once the restore replaced it.
    private static func keepReplaced(_ files: StateFiles, now: Date, temporary: String) throws(StorageError) -> URL? {
        guard FileManager.default.fileExists(atPath: files.database) else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withYear, .withMonth, .withDay, .withTime, .withTimeZone]
        let stamp = formatter.string(from: now).replacingOccurrences(of: ":", with: "")
        for attempt in 0..<100 {
            let path = files.database + ".replaced-\(stamp)" + (attempt == 0 ? "" : "-\(attempt)")
            if link(files.database, path) == 0 { return URL(fileURLWithPath: path) }
            if errno == EEXIST { continue }
            // A file system without hard links (some FUSE and network mounts): a copy, 0600.
            guard (try? FileManager.default.copyItem(atPath: files.database, toPath: path)) != nil else { break }
            chmod(path, 0o600)
            return URL(fileURLWithPath: path)
        }
        let reason = StateFiles.errnoText("cannot keep a copy of the state being replaced")
        unlink(temporary)
        throw .fileSystem(path: files.database, reason: reason)
    }

    /// Opens a backup read-only and checks it is a whole youll-devices database this
    /// binary can read.
    static func validatedBackup(_ backup: URL) throws(StorageError) -> DatabaseQueue {
        let path = backup.path
        guard FileManager.default.fileExists(atPath: path) else {
            throw .invalidBackup(path: path, reason: "no such file")
        }
        do {
            try StateFiles(directory: backup.deletingLastPathComponent()).checkHeader(of: path, hint: "")
        } catch {
            throw .invalidBackup(path: path, reason: "not an SQLite database")
        }
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration(readonly: true))
            try queue.read { db in
                let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
                guard integrity == ["ok"] else {
                    throw StorageError.invalidBackup(
                        path: path, reason: "integrity check failed: \(integrity.prefix(3).joined(separator: "; "))")
                }
                let application = try Int32.fetchOne(db, sql: "PRAGMA application_id")
                let version = try Schema.version(of: db)
                guard application == Schema.applicationID, version.found > 0 else {
                    throw StorageError.invalidBackup(
                        path: path, reason: "an SQLite database, but not youll-devices state")
                }
                if version.found > Schema.knownVersion || version.superseded {
                    throw StorageError.newerSchema(path: path, found: version.found, known: Schema.knownVersion)
                }
            }
            return queue
        } catch let error as StorageError {
            throw error
        } catch {
            let message = (error as? DatabaseError)?.message ?? "\(error)"
            throw .invalidBackup(path: path, reason: message)
        }
    }

    /// A fresh 0600 file next to `path`, so the final rename stays within one file system.
    static func createTemporary(near path: String) throws(StorageError) -> String {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(
                ".\(url.lastPathComponent).partial-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            )
            .path
        let fd = posixOpen(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .fileSystem(path: temporary, reason: StateFiles.errnoText("cannot create")) }
        posixClose(fd)
        return temporary
    }

    /// SQLite online backup into `path`, then rollback-journal mode so the result is one
    /// self-contained file, then fsync.
    static func copy(from source: any DatabaseReader, toFileAt path: String, operation: String) throws(StorageError) {
        do {
            var config = Configuration()
            config.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            let destination = try DatabaseQueue(path: path, configuration: config)
            try source.backup(to: destination)
            try destination.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = DELETE") }
            try destination.close()
        } catch {
            throw mapped(error, path: path, operation: operation)
        }
        let fd = posixOpen(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0, fsync(fd) == 0 else {
            if fd >= 0 { posixClose(fd) }
            throw .fileSystem(path: path, reason: StateFiles.errnoText("cannot sync"))
        }
        posixClose(fd)
    }

    /// Gives a finished temporary file its name: `rename` to replace, `link` to refuse an
    /// existing file atomically.
    static func publish(_ temporary: String, as target: String, overwrite: Bool) throws(StorageError) {
        if overwrite {
            guard posixRename(temporary, target) == 0 else {
                throw .fileSystem(path: target, reason: StateFiles.errnoText("cannot write the backup"))
            }
        } else {
            if link(temporary, target) == 0 {
                unlink(temporary)
            } else {
                let code = errno
                if code == EEXIST { throw .backupExists(path: target) }
                // FAT and exFAT (a USB stick) have no hard links: a check, then a rename.
                guard [EPERM, ENOTSUP, EOPNOTSUPP, ENOSYS].contains(code) else {
                    throw .fileSystem(path: target, reason: StateFiles.errnoText("cannot write the backup"))
                }
                if FileManager.default.fileExists(atPath: target) { throw .backupExists(path: target) }
                guard posixRename(temporary, target) == 0 else {
                    throw .fileSystem(path: target, reason: StateFiles.errnoText("cannot write the backup"))
                }
            }
        }
        StateFiles.syncDirectory(URL(fileURLWithPath: target).deletingLastPathComponent().path)
    }

    /// Folds a WAL left by a killed daemon into the old file before the swap, so the old file
    /// is whole if the rename never happens. Best effort: a damaged live file is what a
    /// restore is for, so failing to open it is fine.
    static func checkpointLiveDatabase(_ files: StateFiles) {
        guard FileManager.default.fileExists(atPath: files.wal) else { return }
        do {
            try files.checkHeader(of: files.database, hint: "")
            let queue = try DatabaseQueue(path: files.database, configuration: configuration())
            try queue.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
            try queue.close()
        } catch {}
    }
}

// Inside `GatewayDatabase`, `open` and `rename` name its own methods.
private func posixOpen(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 { open(path, flags, mode) }
private func posixRename(_ from: String, _ to: String) -> Int32 { rename(from, to) }
private func posixClose(_ fd: Int32) { close(fd) }
