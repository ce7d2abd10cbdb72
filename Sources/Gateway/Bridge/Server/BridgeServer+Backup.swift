import Foundation
import Storage
import TuyaCore

#if canImport(Glibc)
    import Glibc
#endif

extension BridgeServer {
    /// Writes a consistent copy of the database into the backup folder (0700), unless
    /// `BackupRotation` refuses (too soon, too little room), then deletes copies beyond the
    /// newest five.
    func makeBackup() throws -> BackupPayload {
        let directory = settings.backupDirectory
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw BridgeFailure(message: "cannot create \(directory.path): \(error.localizedDescription)")
        }
        let databaseBytes = (try? FileManager.default.attributesOfItem(atPath: database.path)[.size] as? Int64) ?? 0
        if let reason = settings.backups.refusal(
            sinceLastBackup: lastBackupAt.map { ContinuousClock.now - $0 }, databaseBytes: databaseBytes,
            freeBytes: Self.freeBytes(at: directory.path))
        {
            throw BridgeFailure(message: reason)
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let base = "youll-devices-" + formatter.string(from: Date())
        var target = directory.appendingPathComponent(base + ".sqlite")
        var attempt = 1
        while FileManager.default.fileExists(atPath: target.path) {
            attempt += 1
            target = directory.appendingPathComponent("\(base)-\(attempt).sqlite")
        }
        try database.backup(to: target)
        lastBackupAt = ContinuousClock.now
        let size = (try? FileManager.default.attributesOfItem(atPath: target.path)[.size] as? Int) ?? 0
        logger.info("backup written to \(target.path)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in settings.backups.expired(names, written: target.lastPathComponent) {
            do {
                try FileManager.default.removeItem(at: directory.appendingPathComponent(name))
            } catch {
                logger.warning("could not delete the old backup \(name): \(error.localizedDescription)")
            }
        }
        return BackupPayload(path: target.path, sizeBytes: Int64(size))
    }

    /// Bytes free for an unprivileged writer on the file system holding `path`.
    static func freeBytes(at path: String) -> Int64? {
        var stats = statvfs()
        guard statvfs(path, &stats) == 0 else { return nil }
        return Int64(stats.f_bavail) * Int64(stats.f_frsize)
    }
}
