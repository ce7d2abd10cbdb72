import Foundation
import GRDB
import Gateway
import Testing
import TuyaCore
import YoullTestSupport

/// A paired device whose profile stops loading (a user's edit broke the file) across a
/// restart of the daemon: real mosquitto, simulated devices, the daemon in this process with
/// a real SQLite state directory, and profiles in a folder of the test's own.
@Suite(
    "A paired device that cannot be driven: its profile did not load, its stored row is damaged", .serialized,
    .timeLimit(.minutes(3)))
struct UnloadedProfileDaemonTests {
    @Test(
        "is listed with its problem and offline, keeps its Home Assistant entities, says why a command fails, and can be removed"
    )
    func keptAndRemovable() async throws {
        let world = try await HADiscoveryBrokerTests.World()
        let profiles = FileManager.default.temporaryDirectory.appendingPathComponent("youll-profiles-\(UUID())")
        try FileManager.default.copyItem(at: Repository.devicesDirectory, to: profiles)
        defer { try? FileManager.default.removeItem(at: profiles) }
        let configTopic = world.configTopic(world.light)

        var profileID = ""
        try await HADiscoveryBrokerTests.withDaemon(world, profiles: profiles) { daemon in
            let paired = try await daemon.pair(devId: world.light.devId, localKey: world.light.localKey, as: "lamp")
            profileID = try #require(paired["profile"]?.stringValue, "\(paired)")
            _ = try await daemon.config(configTopic)
        }
        // The user's edit breaks the lamp's profile.
        let files = try FileManager.default.contentsOfDirectory(at: profiles, includingPropertiesForKeys: nil)
        let broken = try #require(
            files.first {
                $0.pathExtension == "yaml"
                    && (try? String(contentsOf: $0, encoding: .utf8))?.contains("id: \(profileID)\n") == true
            })
        try "id: \(profileID)\nname: [unclosed\n".write(to: broken, atomically: true, encoding: .utf8)

        try await HADiscoveryBrokerTests.withDaemon(world, profiles: profiles) { daemon in
            let client = daemon.client
            // Availability comes after discovery in a republish: by then a clear would have been
            // sent. The first run's retained `online` may come first.
            let availabilities = try await client.subscribe(["youll/lamp/availability"])
            let availability = try await availabilities.first(within: 20, "the lamp's availability with a reason") {
                $0.json?["reason"] != nil
            }
            #expect(
                availability.json == .object(["state": .string("offline"), "reason": .string("profile_not_loaded")]))
            let devices = try #require(try await client.retained("youll/bridge/devices", timeout: daemon.timeout)?.json)
            let lamp = try #require(devices.arrayValue?.first { $0["friendly_name"] == .string("lamp") }, "\(devices)")
            #expect(lamp["problem"] == .string("profile \(profileID) is not loaded"))
            let config = try #require(try await client.retained(configTopic, timeout: daemon.timeout))
            #expect(!config.payload.isEmpty, "the lamp's discovery config was cleared")

            await #expect {
                try await client.set(device: "lamp", payload: ["state": .string("ON")], timeout: daemon.timeout)
            } throws: { error in
                "\(error)".contains("lamp cannot be driven: profile \(profileID) is not loaded")
            }
            await #expect {
                try await client.request(
                    "device/rename", ["from": .string("lamp"), "to": .string("desk")], timeout: daemon.timeout)
            } throws: { error in
                "\(error)".contains("from: lamp cannot be driven: profile \(profileID) is not loaded")
            }
            _ = try await client.request("device/remove", ["id": .string("lamp")], timeout: daemon.timeout)
            #expect(try await client.retained(configTopic, timeout: daemon.timeout) == nil, "cleared once removed")
        }
        await world.close()
    }

    @Test(
        "a device whose stored row was damaged by hand is listed with its problem and offline, the others are driven, and it can be removed"
    )
    func damagedRow() async throws {
        let world = try await HADiscoveryBrokerTests.World()
        try await HADiscoveryBrokerTests.withDaemon(world) { daemon in
            try await daemon.pair(world.light, as: "lamp")
            try await daemon.pair(world.diffuser, as: "aroma")
        }
        // A hand edit leaves the lamp's category unreadable (and its desired state); either
        // stopped the daemon before.
        let path = world.state.appendingPathComponent("state.sqlite").path
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(sql: "UPDATE devices SET category = 'lamp' WHERE id = ?", arguments: [world.light.devId])
            #expect(db.changesCount == 1)
            try db.execute(
                sql: "UPDATE device_state SET desired = '{not json' WHERE device_id = ?", arguments: [world.light.devId]
            )
        }
        try queue.close()
        let configTopic = world.configTopic(world.light)

        try await HADiscoveryBrokerTests.withDaemon(world) { daemon in
            let client = daemon.client
            let availabilities = try await client.subscribe(["youll/lamp/availability"])
            let availability = try await availabilities.first(within: 20, "the lamp's availability with a reason") {
                $0.json?["reason"] != nil
            }
            #expect(
                availability.json
                    == .object(["state": .string("offline"), "reason": .string("stored_record_damaged")]))
            let devices = try #require(try await client.retained("youll/bridge/devices", timeout: daemon.timeout)?.json)
            let lamp = try #require(devices.arrayValue?.first { $0["friendly_name"] == .string("lamp") }, "\(devices)")
            #expect(lamp["problem"] == .string(#"its stored record is damaged: its category "lamp" cannot be read"#))
            #expect(lamp["capabilities"] == .array([]) && lamp["category"] == .string("unknown"))
            let config = try #require(try await client.retained(configTopic, timeout: daemon.timeout))
            #expect(!config.payload.isEmpty, "the lamp's Home Assistant config was cleared")

            _ = try await client.set(device: "aroma", payload: ["state": .string("ON")], timeout: daemon.timeout)
            await #expect {
                try await client.set(device: "lamp", payload: ["state": .string("ON")], timeout: daemon.timeout)
            } throws: { error in
                "\(error)".contains("lamp cannot be driven: its stored record is damaged")
                    && "\(error)".contains("youll-devices remove \(world.light.devId)")
            }
            _ = try await client.request("device/remove", ["id": .string("lamp")], timeout: daemon.timeout)
            let after = try #require(try await client.retained("youll/bridge/devices", timeout: daemon.timeout)?.json)
            #expect(after.arrayValue?.compactMap { $0["friendly_name"]?.stringValue } == ["aroma"])
            #expect(try await client.retained(configTopic, timeout: daemon.timeout) == nil, "cleared once removed")
        }
        let reader = try DatabaseQueue(path: path)
        let left = try await reader.read { db in
            try Int.fetchOne(db, sql: "SELECT (SELECT COUNT(*) FROM device_state) + (SELECT COUNT(*) FROM secrets)")
        }
        try reader.close()
        #expect(left == 2, "only the diffuser's state and key are left")
        await world.close()
    }
}
