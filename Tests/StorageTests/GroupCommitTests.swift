import Foundation
import Testing
import TuyaCore

@testable import Storage

/// Real parts: SQLite database files in a temporary directory.
@Suite("group commits of device states")
struct GroupCommitTests {
    private static func lamp(_ number: Int) -> TuyaDevice {
        TuyaDevice(
            id: DeviceID("bf-lamp-\(number)")!, name: "lamp-\(number)", profileID: "generic-rgbcw-light",
            category: .light, transport: .mqtt)
    }

    @Test("states queued by many callers at once are all on disk when each caller's commit is done")
    func manyCallers() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try GatewayDatabase.open(directory: scratch.state)
        let lamps = (1...40).map(Self.lamp)
        for lamp in lamps { try await database.saveDevice(lamp, localKey: Fixture.lampKey) }
        let failures = await withTaskGroup(of: StorageError?.self) { group in
            for (index, lamp) in lamps.enumerated() {
                group.addTask {
                    let values: DataPoints = [Fixture.dp(22): .value(Int32(index))]
                    database.queueDesired([Fixture.dp(20): .bool(index.isMultiple(of: 2))], for: lamp.id)
                    return await database.waitForCommit(database.queueConfirmed(for: lamp.id) { values })
                }
            }
            return await group.compactMap { $0 }.reduce(into: []) { $0.append($1) }
        }
        #expect(failures.isEmpty)
        try database.close()

        let reopened = try GatewayDatabase.open(directory: scratch.state)
        for (index, lamp) in lamps.enumerated() {
            #expect(try await reopened.confirmed(for: lamp.id) == [Fixture.dp(22): .value(Int32(index))])
            #expect(try await reopened.desired(for: lamp.id) == [Fixture.dp(20): .bool(index.isMultiple(of: 2))])
        }
    }

    @Test("a confirmed state is read when its commit is written, so the latest values are the ones saved")
    func latestValues() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try GatewayDatabase.open(directory: scratch.state)
        try await database.saveDevice(Fixture.lamp, localKey: Fixture.lampKey)
        let latest = LatestValue()
        let first = database.queueConfirmed(for: Fixture.lampID) { await latest.values }
        await latest.set([Fixture.dp(22): .value(900)])
        let second = database.queueConfirmed(for: Fixture.lampID) { await latest.values }
        #expect(await database.waitForCommit(first) == nil)
        #expect(await database.waitForCommit(second) == nil)
        #expect(try await database.confirmed(for: Fixture.lampID) == [Fixture.dp(22): .value(900)])
    }

    @Test("a device removed before its commit is skipped, and the others in that commit are saved")
    func removedDevice() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try GatewayDatabase.open(directory: scratch.state)
        try await database.saveDevice(Fixture.lamp, localKey: Fixture.lampKey)
        let gone = Self.lamp(7)
        try await database.saveDevice(gone, localKey: Fixture.lampKey)
        try await database.remove(gone.id)
        database.queueDesired([Fixture.dp(20): .bool(true)], for: gone.id)
        let commit = database.queueDesired([Fixture.dp(20): .bool(false)], for: Fixture.lampID)
        #expect(await database.waitForCommit(commit) == nil)
        #expect(try await database.desired(for: Fixture.lampID) == [Fixture.dp(20): .bool(false)])
    }

    @Test("flushing writes every queued state before the database is closed")
    func flushBeforeClose() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try GatewayDatabase.open(directory: scratch.state)
        try await database.saveDevice(Fixture.lamp, localKey: Fixture.lampKey)
        database.queueDesired([Fixture.dp(20): .bool(true)], for: Fixture.lampID)
        await database.flushQueuedStates()
        try database.close()
        let reopened = try GatewayDatabase.open(directory: scratch.state)
        #expect(try await reopened.desired(for: Fixture.lampID) == [Fixture.dp(20): .bool(true)])
    }
}

/// Values a test changes between queueing a state and its commit.
private actor LatestValue {
    var values: DataPoints = [Fixture.dp(22): .value(100)]

    func set(_ values: DataPoints) {
        self.values = values
    }
}
