import DeviceSimulator
import Foundation
import GRDB
import Gateway
import LocalBroker
import Testing
import TuyaCore
import YoullTestSupport

/// A write an answer promises, refused by the disk: the daemon's database held locked by
/// another connection (as a full or failing disk refuses writes), a real mosquitto, a
/// simulated bulb, the bridge API through the real `BridgeClient`.
@Suite("A failed write through the daemon", .serialized, .timeLimit(.minutes(2)))
struct DaemonFailedWriteTests {
    static let timeout = Duration.seconds(30)

    @Test("when the confirmed state cannot be saved, /set answers an error, health is degraded, and both recover")
    func setAnswersTheFailedSave() async throws {
        let broker = try LocalBroker()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("youll-write-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let fleet = try SimulatorFleet(
            options: .init(lights: 1, diffusers: 0, seed: 84), library: Repository.shippedProfiles,
            broker: SwarmConfiguration(brokerURL: broker.url))
        try await fleet.start()
        #expect(await fleet.waitUntilConnected(timeout: Self.timeout))
        defer { fleet.stop() }
        let identity = try #require(fleet.identities.first)

        try await withRunningDaemon(broker: broker, state: state, timeout: Self.timeout) { daemon in
            try await daemon.pair(devId: identity.devId, localKey: identity.localKey, as: "lamp")
            _ = try await daemon.client.set(
                device: "lamp", payload: ["brightness": .integer(30)], timeout: Self.timeout)

            // Another connection takes the write lock and keeps it: every write of the daemon's
            // fails after its busy timeout.
            let blocker = try DatabaseQueue(path: state.appendingPathComponent("state.sqlite").path)
            let locked = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            // A thread of its own holds the lock (never one of the cooperative pool's).
            Thread {
                try? blocker.inTransaction(.exclusive) { _ in
                    locked.signal()
                    release.wait()
                    return .rollback
                }
            }.start()
            locked.wait()
            do {
                _ = try await daemon.client.set(
                    device: "lamp", payload: ["brightness": .integer(60)], timeout: Self.timeout)
                Issue.record("/set answered ok although nothing could be saved")
            } catch {
                #expect("\(error)".contains("could not save it"), "\(error)")
            }
            let degraded = try await daemon.client.request("health_check", timeout: Self.timeout)
            #expect(degraded.objectValue?["healthy"] == .bool(false))
            #expect(degraded.objectValue?["database"]?.stringValue?.hasPrefix("degraded: ") == true)

            release.signal()
            _ = try await daemon.client.set(
                device: "lamp", payload: ["brightness": .integer(70)], timeout: Self.timeout)
            let healthy = try await daemon.client.request("health_check", timeout: Self.timeout)
            #expect(healthy.objectValue?["database"]?.stringValue == "ok")
        }
    }
}
