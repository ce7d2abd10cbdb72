import Foundation
import GRDB
import Testing
import TuyaCore

@testable import Storage

/// Real parts: SQLite database files, SQLite's online backup, flock(2), in a temporary directory.
@Suite("backup and restore")
struct BackupRestoreTests {
    private func populated(_ directory: URL) async throws -> GatewayDatabase {
        let database = try GatewayDatabase.open(directory: directory)
        try await database.saveDevice(Fixture.lamp, localKey: Fixture.lampKey, at: Fixture.paired)
        try await database.saveDesired(Fixture.everyType, for: Fixture.lampID)
        try await database.recordCandidate(Fixture.diffuserID, at: Fixture.paired)
        try await database.appendEvent("paired", device: Fixture.lampID)
        return database
    }

    @Test("a backup restored into another directory holds every table, and the file is 0600")
    func roundTrip() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let original = try await populated(scratch.state)
        let file = scratch.url.appendingPathComponent("backup.sqlite")
        try original.backup(to: file)
        #expect(permissionsOf(file.path) == 0o600)
        #expect(!FileManager.default.fileExists(atPath: file.path + "-wal"))

        let target = scratch.url.appendingPathComponent("restored")
        try GatewayDatabase.restore(from: file, into: target)
        let restored = try GatewayDatabase.open(directory: target)
        #expect(try await restored.loadDevices() == original.loadDevices())
        #expect(try await restored.candidates() == original.candidates())
        #expect(try await restored.recentEvents() == original.recentEvents())
        #expect(permissionsOf(restored.path) == 0o600)
    }

    @Test("restore replaces live state, discarding the old -wal")
    func replacesLive() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.url.appendingPathComponent("backup.sqlite")
        do {
            let database = try await populated(scratch.state)
            try database.backup(to: file)
            try await database.saveDevice(Fixture.diffuser, localKey: Fixture.diffuserKey)
            try await database.remove(Fixture.lampID)
        }
        try GatewayDatabase.restore(from: file, into: scratch.state)
        let restored = try GatewayDatabase.open(directory: scratch.state)
        #expect(try await restored.loadDevices().records.map(\.device.id) == [Fixture.lampID])
    }

    @Test("backup refuses to overwrite an existing file unless asked")
    func noOverwrite() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try await populated(scratch.state)
        let file = scratch.url.appendingPathComponent("backup.sqlite")
        try Data("precious".utf8).write(to: file)
        #expect(throws: StorageError.backupExists(path: file.path)) { try database.backup(to: file) }
        #expect(try Data(contentsOf: file) == Data("precious".utf8))
        try database.backup(to: file, overwrite: true)
        #expect(try Data(contentsOf: file).prefix(15) == Data("SQLite format 3".utf8))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).filter {
            $0.contains("partial")
        }
        #expect(leftovers.isEmpty)
    }

    @Test(
        "a backup over the live database, its journal or its lock is refused, even with overwrite, by a link or a relative path; the state is untouched"
    )
    func refusesOwnFiles() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try await populated(scratch.state)
        let link = scratch.url.appendingPathComponent("state-link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: database.path)
        let targets = [
            database.path, database.path + "-wal", database.path + "-shm",
            scratch.state.appendingPathComponent("state.lock").path, link.path,
            scratch.state.appendingPathComponent("../\(scratch.state.lastPathComponent)/state.sqlite").path,
        ]
        for target in targets {
            #expect(throws: StorageError.backupOverLiveState(path: target), "\(target)") {
                try database.backup(to: URL(fileURLWithPath: target), overwrite: true)
            }
        }
        try await database.saveDevice(Fixture.diffuser, localKey: Fixture.diffuserKey)
        #expect(try await database.loadDevices().records.count == 2, "the live database still takes writes")
        try database.backup(to: scratch.state.appendingPathComponent("state.sqlite.copy"))
    }

    @Test("restored by root into a state directory another user owns (a service's), the state file is that user's")
    func restoredFileOwner() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.url.appendingPathComponent("backup.sqlite")
        try await populated(scratch.state).backup(to: file)
        // Who runs the restore decides; the rule itself is checked for root and for a user.
        #expect(GatewayDatabase.restoredOwner(euid: 1000, directory: scratch.state.path) == nil)
        guard geteuid() == 0 else {
            #expect(GatewayDatabase.restoredOwner(euid: 0, directory: scratch.state.path)?.uid == geteuid())
            return
        }
        #expect(chown(scratch.state.path, 4321, 4321) == 0)
        try GatewayDatabase.restore(from: file, into: scratch.state)
        var info = stat()
        #expect(stat(scratch.state.appendingPathComponent("state.sqlite").path, &info) == 0)
        #expect(info.st_uid == 4321 && info.st_gid == 4321)
        #expect(stat(scratch.state.appendingPathComponent("state.lock").path, &info) == 0)
        #expect(info.st_uid == 4321, "the lock the restore took is the service's to take next")
        #expect(GatewayDatabase.restoredOwner(euid: 0, directory: scratch.state.path)?.uid == 4321)
    }

    @Test(
        "a backup by another process copies the state as it is: an older schema is not upgraded under its daemon, a newer one is copied"
    )
    func backupDoesNotMigrate() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        func version(_ path: String) throws -> Int? {
            try DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: "PRAGMA user_version") }
        }
        do {
            // The state as the previous version left it: without the last migration.
            let database = try await populated(scratch.state)
            try await database.pool.write { db in
                try db.execute(sql: "ALTER TABLE sessions DROP COLUMN elapsed_at")
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v8-session-elapsed-at'")
                try db.execute(sql: "PRAGMA user_version = 7")
            }
            try database.close()
        }
        let older = scratch.url.appendingPathComponent("older.sqlite")
        try GatewayDatabase.backup(directory: scratch.state, to: older)
        #expect(try version(scratch.databasePath) == 7, "the live state was not upgraded")
        #expect(try version(older.path) == 7)
        // Restored, it is upgraded like any state the daemon opens.
        let restored = scratch.url.appendingPathComponent("restored")
        try GatewayDatabase.restore(from: older, into: restored)
        #expect(
            try await GatewayDatabase.open(directory: restored).loadDevices().records.map(\.device.id) == [
                Fixture.lampID
            ])

        let queue = try DatabaseQueue(path: scratch.databasePath)
        try await queue.write { try $0.execute(sql: "PRAGMA user_version = 9") }
        try queue.close()
        let newer = scratch.url.appendingPathComponent("newer.sqlite")
        try GatewayDatabase.backup(directory: scratch.state, to: newer)
        #expect(try version(newer.path) == 9)
        #expect(throws: StorageError.backupOverLiveState(path: scratch.databasePath)) {
            try GatewayDatabase.backup(
                directory: scratch.state, to: URL(fileURLWithPath: scratch.databasePath), overwrite: true)
        }
    }

    @Test("restore is refused while the daemon lock is held, and allowed once it is released")
    func refusedWhileLocked() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try await populated(scratch.state)
        let file = scratch.url.appendingPathComponent("backup.sqlite")
        try database.backup(to: file)
        var lock: DaemonLock? = try database.acquireDaemonLock()
        let lockPath = try #require(lock?.path)
        #expect(throws: StorageError.daemonRunning(lockPath: lockPath)) {
            try GatewayDatabase.restore(from: file, into: scratch.state)
        }
        #expect(throws: StorageError.daemonRunning(lockPath: lockPath)) {
            try GatewayDatabase.acquireDaemonLock(in: scratch.state)
        }
        #expect(StorageError.daemonRunning(lockPath: lockPath).description.contains("stop youll-devices first"))
        withExtendedLifetime(lock) {}
        lock = nil
        try GatewayDatabase.restore(from: file, into: scratch.state)
    }

    @Test("a garbage, foreign or newer backup is refused and the live database is untouched")
    func badBackups() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try await populated(scratch.state)
        let devices = try await database.loadDevices()
        try await database.pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        let live = try Data(contentsOf: URL(fileURLWithPath: database.path))

        let garbage = scratch.url.appendingPathComponent("garbage.sqlite")
        try Data(repeating: 0x5A, count: 10_000).write(to: garbage)
        let foreign = scratch.url.appendingPathComponent("foreign.sqlite")
        try await DatabaseQueue(path: foreign.path).write { db in try db.execute(sql: "CREATE TABLE t (x)") }
        let newer = scratch.url.appendingPathComponent("newer.sqlite")
        try database.backup(to: newer)
        try await DatabaseQueue(path: newer.path).write { db in try db.execute(sql: "PRAGMA user_version = 9") }
        let truncated = scratch.url.appendingPathComponent("truncated.sqlite")
        try database.backup(to: truncated)
        let whole = try Data(contentsOf: truncated)
        try whole.prefix(whole.count / 2).write(to: truncated)

        for file in [garbage, foreign, truncated, scratch.url.appendingPathComponent("missing.sqlite")] {
            #expect("\(file.lastPathComponent)".isEmpty == false)
            #expect {
                try GatewayDatabase.restore(from: file, into: scratch.state)
            } throws: { error in
                guard case StorageError.invalidBackup(let path, _) = error else { return false }
                return path == file.path
            }
        }
        #expect(throws: StorageError.newerSchema(path: newer.path, found: 9, known: 8)) {
            try GatewayDatabase.restore(from: newer, into: scratch.state)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: database.path)) == live)
        #expect(try await database.loadDevices() == devices)
    }
}
