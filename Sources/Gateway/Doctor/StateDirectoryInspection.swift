import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What `doctor` found in the state directory: the directory itself and the database in it,
/// read with `stat` and `access` and nothing else (doctor never creates or repairs anything).
public struct StateDirectoryInspection: Hashable, Sendable {
    /// One file system entry as `stat` saw it.
    public enum Entry: Hashable, Sendable {
        case missing
        /// `mode` holds the permission bits only.
        case directory(mode: UInt32, owner: UInt32)
        case file(mode: UInt32, owner: UInt32)
        /// Something else (a symlink to nowhere, a socket), or `stat` failed with `reason`.
        case other(String)
    }

    /// The database file `Storage`'s `GatewayDatabase` keeps in the state directory
    /// (`StateFiles.databaseName`; a GatewayTests test opens a real database to keep them equal).
    public static let databaseName = "state.sqlite"

    public var directory: Entry
    public var database: Entry
    /// `access(W_OK)` on the directory: the daemon must create and replace files in it. For a
    /// missing directory, on the nearest existing parent, which the daemon must create it in.
    public var isWritable: Bool
    /// The user doctor runs as (`geteuid`).
    public var userID: UInt32

    public init(directory: Entry, database: Entry, isWritable: Bool, userID: UInt32) {
        self.directory = directory
        self.database = database
        self.isWritable = isWritable
        self.userID = userID
    }

    /// Looks at `path` and `path/state.sqlite` on this machine.
    public static func inspect(_ path: String) -> StateDirectoryInspection {
        let directory = entry(path)
        var writable = path
        if directory == .missing {
            var parent = URL(fileURLWithPath: path)
            repeat { parent.deleteLastPathComponent() } while parent.path != "/" && entry(parent.path) == .missing
            writable = parent.path
        }
        return StateDirectoryInspection(
            directory: directory, database: entry(path + "/" + databaseName),
            isWritable: access(writable, W_OK) == 0, userID: UInt32(geteuid()))
    }

    static func entry(_ path: String) -> Entry {
        var info = stat()
        guard stat(path, &info) == 0 else {
            return errno == ENOENT ? .missing : .other(String(cString: strerror(errno)))
        }
        let mode = UInt32(info.st_mode) & 0o777
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return .directory(mode: mode, owner: UInt32(info.st_uid))
        case S_IFREG: return .file(mode: mode, owner: UInt32(info.st_uid))
        default: return .other("neither a file nor a directory")
        }
    }
}

extension DoctorCheck {
    /// The state directory holds every device's local key: 0700 and ours, the database 0600
    /// and ours (ARCHITECTURE.md, "State and persistence").
    public static func stateDirectory(_ path: String, _ found: StateDirectoryInspection) -> DoctorCheck {
        let name = "state"
        let databasePath = path + "/" + StateDirectoryInspection.databaseName
        switch found.directory {
        case .missing:
            guard found.isWritable else {
                return .fail(
                    name, "\(path) does not exist, and this user cannot create it",
                    fix: "sudo install -d -m 700 -o $(id -un) \(path)")
            }
            return .warn(name, "\(path) does not exist; it will be created on first start", fix: nil)
        case .file, .other:
            return .fail(
                name, "\(path) is not a directory",
                fix: "move it away, or set state_directory to another path")
        case .directory(let mode, let owner):
            if owner != found.userID {
                return .fail(
                    name, "\(path) belongs to uid \(owner), not to this user (uid \(found.userID))",
                    fix: "run doctor as the daemon's user, or: sudo chown -R $(id -un) \(path)")
            }
            if mode & 0o077 != 0 {
                return .fail(
                    name, "\(path) has mode \(octal(mode)); it holds the devices' local keys and must be 0700",
                    fix: "chmod 700 \(path)")
            }
            if !found.isWritable {
                return .fail(name, "\(path) is not writable by this user", fix: "chmod 700 \(path)")
            }
        }
        switch found.database {
        case .missing:
            return .ok(name, "\(path) (mode 0700), no database yet")
        case .directory, .other:
            return .fail(
                name, "\(databasePath) is not a regular file",
                fix: "move it away; the daemon creates a new database")
        case .file(let mode, let owner):
            if owner != found.userID {
                return .fail(
                    name, "\(databasePath) belongs to uid \(owner), not to this user (uid \(found.userID))",
                    fix: "sudo chown $(id -un) \(databasePath)")
            }
            if mode & 0o077 != 0 {
                return .fail(
                    name,
                    "\(databasePath) has mode \(octal(mode)); it holds the devices' local keys and must be 0600",
                    fix: "chmod 600 \(databasePath)")
            }
            return .ok(name, "\(path) (mode 0700), \(StateDirectoryInspection.databaseName) (mode 0600)")
        }
    }

    private static func octal(_ mode: UInt32) -> String {
        let digits = String(mode & 0o777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
