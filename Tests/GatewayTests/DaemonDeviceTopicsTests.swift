import DeviceSimulator
import Foundation
import Gateway
import LocalBroker
import Testing
import TuyaCore
import YoullTestSupport

/// The retained topics named after a device (state, availability, maintenance) through the
/// whole daemon: a real mosquitto on a free port, a simulated MQTT diffuser, a real SQLite
/// state directory, the bridge API through the real `BridgeClient`.
@Suite("A device's retained topics through the daemon", .serialized, .timeLimit(.minutes(3)))
struct DaemonDeviceTopicsTests {
    static let timeout = Duration.seconds(20)

    static func diffuserFleet(_ broker: LocalBroker, seed: UInt64) async throws -> SimulatorFleet {
        let fleet = try SimulatorFleet(
            options: .init(lights: 0, diffusers: 1, seed: seed), library: Repository.shippedProfiles,
            broker: SwarmConfiguration(brokerURL: broker.url))
        try await fleet.start()
        #expect(await fleet.waitUntilConnected(timeout: timeout))
        return fleet
    }

    static func isCleared(_ daemon: RunningDaemon, _ topic: String) async throws -> Bool {
        try await daemon.client.retained(topic, timeout: timeout)?.payload.isEmpty ?? true
    }

    /// The device's reminder list once one is published (retained already, or the next).
    static func reminders(_ daemon: RunningDaemon, _ name: String) async throws -> BridgeMessage {
        let messages = try await daemon.client.subscribe(["youll/\(name)/maintenance"])
        return try await messages.first(within: 20, "the reminders of \(name)") { !$0.payload.isEmpty }
    }

    static func reminderTypes(_ message: BridgeMessage?) -> Set<String> {
        Set(message?.json?.arrayValue?.compactMap { $0.objectValue?["type"]?.stringValue } ?? [])
    }

    @Test(
        "renaming a diffuser moves every retained topic, maintenance included, clears the old ones, and later snoozes and lists use the new name"
    )
    func renameMovesMaintenance() async throws {
        let broker = try await LocalBroker.started()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("youll-topics-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let fleet = try await Self.diffuserFleet(broker, seed: 81)
        defer { fleet.stop() }
        let identity = try #require(fleet.identities.first)

        try await withRunningDaemon(broker: broker, state: state) { daemon in
            try await daemon.pair(devId: identity.devId, localKey: identity.localKey, as: "old diffuser")
            let before = try await Self.reminders(daemon, "old diffuser")
            #expect(Self.reminderTypes(before) == ["clean", "refill", "replace-wick"])

            _ = try await daemon.client.request(
                "device/rename", ["from": .string("old diffuser"), "to": .string("aroma")], timeout: Self.timeout)
            let moved = try await Self.reminders(daemon, "aroma")
            #expect(Self.reminderTypes(moved) == ["clean", "refill", "replace-wick"])
            for suffix in ["", "/availability", "/maintenance"] {
                #expect(try await Self.isCleared(daemon, "youll/old diffuser" + suffix), "youll/old diffuser\(suffix)")
            }

            // A snooze is published under the new name; the list names it so.
            let snoozes = try await daemon.client.subscribe(["youll/aroma/maintenance"])
            _ = try await daemon.client.request(
                "maintenance/snooze", ["device": .string("aroma"), "type": .string("clean"), "for": .integer(3600)],
                timeout: Self.timeout)
            let snoozed = try await snoozes.first(within: 20, "the snoozed reminder under the new name") {
                $0.json?.arrayValue?.contains {
                    $0.objectValue?["snoozed_until"] != nil && $0.objectValue?["snoozed_until"] != .null
                } == true
            }
            #expect(!snoozed.payload.isEmpty)
            let list = try await daemon.client.request(
                "maintenance/list", ["device": .string("aroma")], timeout: Self.timeout)
            let names = list.objectValue?["reminders"]?.arrayValue?.compactMap {
                $0.objectValue?["friendly_name"]?.stringValue
            }
            #expect(!(names ?? []).isEmpty && (names ?? []).allSatisfy { $0 == "aroma" })
            #expect(try await Self.isCleared(daemon, "youll/old diffuser/maintenance"))

            // Done on a reminder that was fine is acknowledged on the retained list too.
            let dones = try await daemon.client.subscribe(["youll/aroma/maintenance"])
            _ = try await daemon.client.request(
                "maintenance/done", ["device": .string("aroma"), "type": .string("refill")], timeout: Self.timeout)
            let acknowledged = try await dones.first(within: 20, "the reminders after done") {
                !$0.payload.isEmpty && !$0.retained
            }
            #expect(Self.reminderTypes(acknowledged) == ["clean", "refill", "replace-wick"])

            // Removal clears every topic of the current name.
            _ = try await daemon.client.request("device/remove", ["id": .string("aroma")], timeout: Self.timeout)
            for suffix in ["", "/availability", "/maintenance"] {
                #expect(try await Self.isCleared(daemon, "youll/aroma" + suffix), "youll/aroma\(suffix)")
            }
        }
    }

    @Test("after the broker restarts and forgets what was retained, the maintenance reminders are published again")
    func brokerRestartRepublishesMaintenance() async throws {
        let broker = try await LocalBroker.started()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("youll-topics-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let fleet = try await Self.diffuserFleet(broker, seed: 82)
        defer { fleet.stop() }
        let identity = try #require(fleet.identities.first)

        try await withRunningDaemon(broker: broker, state: state) { daemon in
            try await daemon.pair(devId: identity.devId, localKey: identity.localKey, as: "aroma")
            #expect(
                Self.reminderTypes(try await Self.reminders(daemon, "aroma")) == ["clean", "refill", "replace-wick"])
            broker.stop()
            try await broker.restart()
            // A fresh client: the daemon's own went with the broker and reconnects by itself.
            let client = try BridgeClient(configuration: daemon.configuration)
            defer { Task { await client.close() } }
            try await client.connect(timeout: .seconds(30))
            let live = try await client.subscribe(["youll/aroma/maintenance"])
            let latest = try await live.first(within: 60, "the reminders published again after the broker restart") {
                !$0.payload.isEmpty
            }
            #expect(Self.reminderTypes(latest) == ["clean", "refill", "replace-wick"])
        }
    }

    @Test("pairings made together share bridge/devices publishes, and each answer comes after a list naming its device")
    func pairingsShareDeviceLists() async throws {
        let broker = try await LocalBroker.started()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("youll-topics-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let fleet = try SimulatorFleet(
            options: .init(lights: 8, diffusers: 0, seed: 83), library: Repository.shippedProfiles,
            broker: SwarmConfiguration(brokerURL: broker.url))
        try await fleet.start()
        #expect(await fleet.waitUntilConnected(timeout: Self.timeout))
        defer { fleet.stop() }

        try await withRunningDaemon(broker: broker, state: state) { daemon in
            let lists = try await daemon.client.subscribe(["youll/bridge/devices"])
            let counter = Task {
                var seen: [Int] = []
                for await message in lists where !message.retained {
                    seen.append(message.json?.arrayValue?.count ?? -1)
                    if seen.last == 8 { break }
                }
                return seen
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, identity) in fleet.identities.enumerated() {
                    group.addTask {
                        try await daemon.pair(devId: identity.devId, localKey: identity.localKey, as: "lamp \(index)")
                        // The CLI resolves names from the retained list: it names the device already.
                        let names = try await daemon.client.devices(timeout: Self.timeout).map(\.friendlyName)
                        #expect(names.contains("lamp \(index)"))
                    }
                }
                try await group.waitForAll()
            }
            let seen = await counter.value
            #expect(seen.last == 8)
            #expect(seen.count < 8, "one list per pairing: \(seen)")
        }
    }

    @Test(
        "backup writes a copy once; a second request right after is refused with the reason, and nothing more is written"
    )
    func backupIsRateLimited() async throws {
        let broker = try await LocalBroker.started()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("youll-topics-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        try await withRunningDaemon(broker: broker, state: state) { daemon in
            let first = try await daemon.client.request("backup", timeout: Self.timeout)
            let path = try #require(first.objectValue?["path"]?.stringValue)
            #expect(FileManager.default.fileExists(atPath: path))
            do {
                _ = try await daemon.client.request("backup", timeout: Self.timeout)
                Issue.record("a second backup within a minute was written")
            } catch {
                #expect("\(error)".contains("one per 60 s"), "\(error)")
            }
            let copies = try FileManager.default.contentsOfDirectory(
                atPath: state.appendingPathComponent("backups").path)
            #expect(copies.count == 1, "\(copies)")
        }
    }

    @Test(
        "pairing a paired device again with its key is no error (an import run twice); with another key it says to rekey"
    )
    func pairingAgainIsIdempotent() async throws {
        let broker = try await LocalBroker.started()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("youll-topics-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let fleet = try await Self.diffuserFleet(broker, seed: 85)
        defer { fleet.stop() }
        let identity = try #require(fleet.identities.first)
        try await withRunningDaemon(broker: broker, state: state) { daemon in
            try await daemon.pair(devId: identity.devId, localKey: identity.localKey, as: "aroma")
            let again = try await daemon.pair(devId: identity.devId, localKey: identity.localKey, as: "aroma")
            #expect(again.objectValue?["already_paired"] == .bool(true))
            #expect(again.objectValue?["friendly_name"]?.stringValue == "aroma")
            do {
                try await daemon.pair(devId: identity.devId, localKey: "0123456789abcdef", as: "aroma")
                Issue.record("pairing with another key succeeded")
            } catch {
                #expect("\(error)".contains("already paired with a different local key"), "\(error)")
                #expect("\(error)".contains("youll-devices rekey aroma"), "\(error)")
                #expect(!"\(error)".contains("0123456789abcdef"), "the key is never echoed")
            }
        }
    }
}
