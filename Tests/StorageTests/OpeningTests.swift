import Foundation
import GRDB
import Testing
import TuyaCore

@testable import Storage

/// Real parts: SQLite database files and POSIX permissions in a temporary directory.
@Suite("opening the state database")
struct OpeningTests {
    @Test("open creates the directory 0700 and the database, -wal and -shm files 0600")
    func permissions() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let nested = scratch.state.appendingPathComponent("deeper")
        let database = try GatewayDatabase.open(directory: nested)
        try await database.saveDevice(Fixture.lamp, localKey: Fixture.lampKey)
        #expect(permissionsOf(nested.path) == 0o700)
        #expect(permissionsOf(scratch.state.path) == 0o700)
        for suffix in ["", "-wal", "-shm"] {
            #expect(FileManager.default.fileExists(atPath: database.path + suffix))
            #expect(permissionsOf(database.path + suffix) == 0o600, "\(suffix)")
        }
        #expect(database.notices.isEmpty)
    }

    @Test("a directory and file others can read are tightened, with a notice")
    func tightens() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try FileManager.default.createDirectory(at: scratch.state, withIntermediateDirectories: true)
        #expect(chmod(scratch.state.path, 0o755) == 0)
        _ = try GatewayDatabase.open(directory: scratch.state)
        #expect(chmod(scratch.databasePath, 0o644) == 0)
        #expect(chmod(scratch.state.path, 0o777) == 0)
        let reopened = try GatewayDatabase.open(directory: scratch.state)
        #expect(permissionsOf(scratch.state.path) == 0o700)
        #expect(permissionsOf(scratch.databasePath) == 0o600)
        #expect(reopened.notices.contains { $0.contains("0777") && $0.contains("0700") })
        #expect(reopened.notices.contains { $0.contains("0644") && $0.contains("0600") })
    }

    @Test("WAL mode, synchronous FULL and foreign keys are on for every connection")
    func pragmas() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try GatewayDatabase.open(directory: scratch.state)
        let writerSynchronous = try await database.pool.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        #expect(writerSynchronous == 2)
        let (mode, synchronous, foreignKeys) = try await database.pool.read { db in
            (
                try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA synchronous"),
                try Bool.fetchOne(db, sql: "PRAGMA foreign_keys")
            )
        }
        #expect(mode == "wal")
        #expect(synchronous == 2)
        #expect(foreignKeys == true)
    }

    @Test("migrations run once and reopening keeps the data")
    func migrationsOnce() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        do {
            let database = try GatewayDatabase.open(directory: scratch.state)
            try await database.saveDevice(Fixture.lamp, localKey: Fixture.lampKey)
        }
        let database = try GatewayDatabase.open(directory: scratch.state)
        let (applied, version) = try await database.pool.read { db in
            (
                try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid"),
                try Int.fetchOne(db, sql: "PRAGMA user_version")
            )
        }
        #expect(
            applied == [
                "v1-devices", "v2-pairing-candidates", "v3-event-log", "v4-ble-identities", "v5-timer-sessions",
                "v6-maintenance", "v7-lan-endpoints", "v8-session-elapsed-at",
            ])
        #expect(version == 8)
        #expect(try await database.loadDevices().records.count == 1)
    }

    @Test("a database from a newer schema is refused with the upgrade hint and left alone")
    func newerSchema() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        do {
            let database = try GatewayDatabase.open(directory: scratch.state)
            try database.pool.write { db in
                try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9-from-the-future')")
                try db.execute(sql: "PRAGMA user_version = 9")
            }
            try database.close()
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: scratch.databasePath))
        let error = StorageError.newerSchema(path: scratch.databasePath, found: 9, known: 8)
        #expect(throws: error) { try GatewayDatabase.open(directory: scratch.state) }
        #expect(error.description.contains("upgrade youll-devices"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.databasePath)) == before)
    }

    @Test("a garbage file is refused as corrupt, naming it and the restore command, and is not modified")
    func garbage() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try FileManager.default.createDirectory(at: scratch.state, withIntermediateDirectories: true)
        for garbage in [
            Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }),
            Data("SQLite format 3\0".utf8) + Data(repeating: 0xEE, count: 4096),
        ] {
            try garbage.write(to: URL(fileURLWithPath: scratch.databasePath))
            #expect {
                try GatewayDatabase.open(directory: scratch.state)
            } throws: { error in
                guard case StorageError.corrupt(let path, _) = error else { return false }
                return path == scratch.databasePath && "\(error)".contains("youll-devices restore")
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.databasePath)) == garbage)
        }
    }

    @Test("a state path that is a file, not a directory, is refused")
    func notADirectory() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try Data("x".utf8).write(to: scratch.state)
        #expect(
            throws: StorageError.fileSystem(
                path: scratch.state.path, reason: "exists but is not a directory; move it away")
        ) {
            try GatewayDatabase.open(directory: scratch.state)
        }
    }
}
