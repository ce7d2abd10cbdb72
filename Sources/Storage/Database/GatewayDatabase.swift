import Foundation
import GRDB
import TuyaCore

/// The gateway's state: paired devices, their local keys, desired and confirmed state,
/// pairing candidates and a bounded event log, in `state.sqlite` inside a 0700 directory.
///
/// A `DatabasePool` in WAL mode, so the CLI can read (and back up) while the daemon writes.
/// `synchronous = FULL` makes every commit durable before the write returns: a `kill -9`
/// or power cut right after loses nothing that was confirmed to the caller.
public final class GatewayDatabase: Sendable {
    /// The state directory this database lives in.
    public let directory: URL
    /// The path of `state.sqlite`.
    public let path: String
    /// Permission repairs made while opening (a directory that was 0755, …), for the daemon to log.
    public let notices: [String]
    /// How many events the log keeps; older ones are trimmed in the appending transaction.
    public let eventLimit: Int
    /// How many unknown devIds are remembered as pairing candidates; a broker flooded with
    /// made-up ids cannot grow the file without bound.
    public let candidateLimit: Int

    let pool: DatabasePool
    let files: StateFiles
    /// Group commits of device states (StateCommitQueue.swift).
    let commits: StateCommitQueue

    static let restoreHint = "restore a backup with youll-devices restore FILE"

    /// The fix for a stored device row too damaged to name its device.
    public static let damagedRowFix = restoreHint + ", or delete the row from the devices table with sqlite3"

    static let corruptHint = restoreHint + ", or move the file away to start with no devices"

    private init(
        files: StateFiles, pool: DatabasePool, notices: [String], eventLimit: Int, candidateLimit: Int
    ) {
        self.directory = files.directory
        self.path = files.database
        self.files = files
        self.pool = pool
        self.notices = notices
        self.eventLimit = eventLimit
        self.candidateLimit = candidateLimit
        let path = files.database
        commits = StateCommitQueue { desired, confirmed throws(StorageError) in
            try await Self.saveStates(pool: pool, path: path, desired: desired, confirmed: confirmed)
        }
    }

    /// Opens (creating if needed) the state database in `directory` and brings its schema up
    /// to date. Refuses a file from a newer youll-devices and a file that is not a database,
    /// leaving either untouched.
    public static func open(
        directory: URL, eventLimit: Int = 10_000, candidateLimit: Int = 1_000
    ) throws(StorageError) -> GatewayDatabase {
        let files = StateFiles(directory: directory)
        var notices = try files.prepareDirectory()
        try files.checkHeader(of: files.database, hint: corruptHint)
        notices += try files.prepareDatabaseFiles()
        try checkVersion(path: files.database)
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: files.database, configuration: configuration())
            // GRDB's WAL setup sets the writer to synchronous = NORMAL, which can lose the last
            // commits on power loss; FULL syncs the WAL on every commit.
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        } catch {
            throw mapped(error, path: files.database, operation: "opening the database")
        }
        try migrate(pool, path: files.database)
        notices += try files.prepareDatabaseFiles()
        return GatewayDatabase(
            files: files, pool: pool, notices: notices, eventLimit: max(1, eventLimit),
            candidateLimit: max(1, candidateLimit))
    }

    static func configuration(readonly: Bool = false) -> Configuration {
        var config = Configuration()
        config.readonly = readonly
        config.foreignKeysEnabled = true
        config.busyMode = .timeout(5)
        config.label = "youll-devices state"
        // Memory (issue 15): each connection keeps its own page cache, 2 MiB by default, and
        // GRDB opens up to five readers. The daemon reads little (writes are its work) and a miss
        // is served by the kernel's cache of the file: two readers and 512 KiB each saved 1.7 MB
        // of a daemon holding 1,000 devices, at the same rate of confirmed commands.
        config.maximumReaderCount = 2
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            try db.execute(sql: "PRAGMA cache_size = -512")
        }
        return config
    }

    /// Reads the schema version through a read-only connection before anything can write:
    /// opening a WAL pool writes to the file (GRDB makes the -wal non-empty), and a file from
    /// a newer binary or a damaged one must stay exactly as it was.
    static func checkVersion(path: String) throws(StorageError) {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard size > 0 else { return }
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration(readonly: true))
            let version = try queue.read { db in try Schema.version(of: db) }
            try queue.close()
            if version.found > Schema.knownVersion || version.superseded {
                throw StorageError.newerSchema(path: path, found: version.found, known: Schema.knownVersion)
            }
        } catch {
            throw mapped(error, path: path, operation: "reading the schema version")
        }
    }

    /// Checks the schema version again, then applies each pending migration in its own
    /// transaction, so a failure names the migration and leaves the file at the previous one.
    static func migrate(_ pool: DatabasePool, path: String) throws(StorageError) {
        let migrator = Schema.migrator
        let applied: Set<String>
        do {
            let version = try pool.read { db in try Schema.version(of: db) }
            if version.found > Schema.knownVersion || version.superseded {
                throw StorageError.newerSchema(path: path, found: version.found, known: Schema.knownVersion)
            }
            applied = try pool.read { db in
                try db.tableExists("grdb_migrations") ? migrator.appliedIdentifiers(db) : []
            }
        } catch {
            throw mapped(error, path: path, operation: "reading the schema version")
        }
        for migration in Schema.migrations where !applied.contains(migration.identifier) {
            do {
                try migrator.migrate(pool, upTo: migration.identifier)
            } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
                throw .corrupt(path: path, hint: corruptHint)
            } catch {
                let reason = (error as? DatabaseError)?.message ?? "\(error)"
                throw .migrationFailed(path: path, migration: migration.identifier, reason: reason)
            }
        }
    }

    /// Closes every connection now (checkpointing the WAL into the file), instead of whenever
    /// the last reference goes. Any later call fails.
    public func close() throws(StorageError) {
        do {
            try pool.close()
        } catch {
            throw Self.mapped(error, path: path, operation: "closing the database")
        }
    }

    /// Runs `body` in a write transaction that is committed (and synced) before this returns.
    func write<T: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws(StorageError) -> T {
        do {
            return try await pool.write(body)
        } catch {
            throw Self.mapped(error, path: path, operation: operation)
        }
    }

    func read<T: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws(StorageError) -> T {
        do {
            return try await pool.read(body)
        } catch {
            throw Self.mapped(error, path: path, operation: operation)
        }
    }

    /// Turns any error into a `StorageError`. Only SQLite's message is kept, never the SQL
    /// arguments, which can hold a local key.
    static func mapped(_ error: any Error, path: String, operation: String) -> StorageError {
        if let error = error as? StorageError { return error }
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_NOTADB, .SQLITE_CORRUPT:
                return .corrupt(path: path, hint: corruptHint)
            default:
                return .sqlite(path: path, operation: operation, message: error.message ?? "\(error.resultCode)")
            }
        }
        return .sqlite(path: path, operation: operation, message: "\(error)")
    }
}
