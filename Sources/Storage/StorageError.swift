import TuyaCore

/// Why the gateway's state could not be read or written, each case naming the file and
/// the fix a person can apply. Messages never carry a local key.
public enum StorageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The state directory or a file in it could not be created, opened or secured.
    case fileSystem(path: String, reason: String)
    /// The state directory is readable by others and could not be tightened to 0700.
    case insecurePermissions(path: String, mode: String, hint: String)
    /// The database was written by a newer youll-devices: opening it with this binary could
    /// lose data, so it is left alone.
    case newerSchema(path: String, found: Int, known: Int)
    /// The file is not a readable youll-devices database. It is never overwritten.
    case corrupt(path: String, hint: String)
    /// A numbered migration failed; the transaction rolled back and the file is unchanged.
    case migrationFailed(path: String, migration: String, reason: String)
    /// Another device already has this name (names are unique per gateway).
    case nameTaken(name: String, by: DeviceID)
    /// A device field holds a NUL character, which SQLite text cannot keep.
    case invalidText(field: String, device: DeviceID)
    /// No paired device has this id.
    case unknownDevice(DeviceID)
    /// A backup target already exists and overwriting was not asked for.
    case backupExists(path: String)
    /// A backup target is the live state's own database, journal, shared memory or lock file.
    case backupOverLiveState(path: String)
    /// A file offered to `restore` is not a usable youll-devices backup; the live state is untouched.
    case invalidBackup(path: String, reason: String)
    /// The daemon holds the state lock, so the state cannot be replaced under it.
    case daemonRunning(lockPath: String)
    /// No stored record of this kind has this id (`"session 3f2a…"`).
    case notFound(String)
    /// SQLite refused an operation for another reason (disk full, I/O error, …).
    case sqlite(path: String, operation: String, message: String)

    public var description: String {
        switch self {
        case .fileSystem(let path, let reason):
            "\(path): \(reason)"
        case .insecurePermissions(let path, let mode, let hint):
            "\(path) has mode \(mode), readable by other users; \(hint)"
        case .newerSchema(let path, let found, let known):
            "\(path) has schema version \(found) but this youll-devices knows only up to \(known); upgrade youll-devices (the file was left unchanged)"
        case .corrupt(let path, let hint):
            "\(path) is not a readable youll-devices database (left unchanged); \(hint)"
        case .migrationFailed(let path, let migration, let reason):
            "\(path): migration \(migration) failed (\(reason)); the file was left at its previous version, report this with the output of youll-devices doctor"
        case .nameTaken(let name, let owner):
            "the name \"\(name)\" is already used by \(owner); choose another name or rename that device first"
        case .invalidText(let field, let device):
            "the \(field) of \(device) contains a NUL character; remove it and try again"
        case .unknownDevice(let id):
            "no paired device has the id \(id); list them with youll-devices devices"
        case .backupExists(let path):
            "\(path) already exists; choose another file or ask to overwrite it"
        case .backupOverLiveState(let path):
            "\(path) is the live state's own file; writing a backup over it would lose what the daemon writes after, so choose a file outside the state (the default is <state>/backups/)"
        case .invalidBackup(let path, let reason):
            "\(path) is not a usable youll-devices backup (\(reason)); the current state was not touched, make backups with youll-devices backup FILE"
        case .daemonRunning(let lockPath):
            "youll-devices is running (it holds \(lockPath)); stop youll-devices first"
        case .notFound(let what):
            "no \(what) is stored"
        case .sqlite(let path, let operation, let message):
            "\(path): \(operation) failed: \(message)"
        }
    }
}
