import DeviceSimulator
import Foundation
import GRDB
import Gateway
import LocalBroker
import Synchronization
import Testing
import TuyaCore
import YoullTestSupport

/// A write an answer promises, refused by the disk: the daemon's database held locked by
/// another connection (as a full or failing disk refuses writes), a real mosquitto, a
/// simulated bulb, the bridge API through the real `BridgeClient`.
@Suite("A failed write through the daemon", .serialized, .timeLimit(.minutes(2)))
struct DaemonFailedWriteTests {
    static let timeout = Duration.seconds(30)

    /// Another connection takes the write lock and keeps it until the returned lock is
    /// released: every write of the daemon's fails after its busy timeout.
    static func lockDatabase(in state: URL) async throws -> HeldWriteLock {
        var configuration = Configuration()
        // The daemon may be writing at that moment: wait for it rather than fail.
        configuration.busyMode = .timeout(10)
        let blocker = try DatabaseQueue(
            path: state.appendingPathComponent("state.sqlite").path, configuration: configuration)
        let lock = HeldWriteLock()
        // A thread of its own holds the lock (never one of the cooperative pool's), and this
        // task waits for it without blocking a pool thread while the daemon finishes a write.
        try await withCheckedThrowingContinuation { (locked: CheckedContinuation<Void, any Error>) in
            Thread {
                do {
                    try blocker.inTransaction(.exclusive) { _ in
                        locked.resume()
                        lock.wait()
                        return .rollback
                    }
                } catch {
                    locked.resume(throwing: LockFailed(reason: "\(error)"))
                }
            }.start()
        }
        return lock
    }

    struct LockFailed: Error { var reason: String }

    /// The write lock another connection holds, until `release()` (the first call counts).
    final class HeldWriteLock: Sendable {
        private let semaphore = DispatchSemaphore(value: 0)
        private let released = Mutex(false)

        /// On the holding thread: blocks until released.
        fileprivate func wait() { semaphore.wait() }

        func release() {
            let first = released.withLock { released in
                defer { released = true }
                return !released
            }
            if first { semaphore.signal() }
        }
    }

    @Test(
        "when a reminder marked done or snoozed cannot be saved, the answer is an error and health is degraded, until a save succeeds"
    )
    func maintenanceAnswersTheFailedSave() async throws {
        let broker = try await LocalBroker.started()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("youll-write-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let fleet = try await DaemonMaintenanceTests.dryFleet(broker: broker)
        defer { fleet.stop() }
        let identity = try #require(fleet.identities.first)

        try await withRunningDaemon(broker: broker, state: state, timeout: Self.timeout) { daemon in
            let events = try await daemon.client.subscribe(["youll/bridge/event"])
            try await DaemonMaintenanceTests.pairAndMist(daemon, identity)
            // The tank runs dry: the refill reminder is due, so marking it done changes state.
            var alert = try #require(await DaemonMaintenanceTests.Events.nextAlert(events))
            while alert["type"]?.stringValue != "refill" {
                alert = try #require(await DaemonMaintenanceTests.Events.nextAlert(events))
            }
            let refill = ["device": JSONValue.string("aroma"), "type": .string("refill")]
            var snooze = refill
            snooze["for"] = .integer(3600)

            let lock = try await Self.lockDatabase(in: state)
            // On every path: a lock left held would fail the daemon's writes past the test.
            defer { lock.release() }
            for (verb, payload) in [("maintenance/done", refill), ("maintenance/snooze", snooze)] {
                do {
                    _ = try await daemon.client.request(verb, payload, timeout: Self.timeout)
                    Issue.record("\(verb) answered ok although nothing could be saved")
                } catch {
                    #expect("\(error)".contains("could not save it"), "\(verb): \(error)")
                }
            }
            let degraded = try await daemon.client.request("health_check", timeout: Self.timeout)
            #expect(degraded.objectValue?["healthy"] == .bool(false))
            #expect(degraded.objectValue?["database"]?.stringValue?.hasPrefix("degraded: ") == true)

            lock.release()
            _ = try await daemon.client.request("maintenance/snooze", snooze, timeout: Self.timeout)
            let healthy = try await daemon.client.request("health_check", timeout: Self.timeout)
            #expect(healthy.objectValue?["database"]?.stringValue == "ok")
        }
    }

    @Test("when the confirmed state cannot be saved, /set answers an error, health is degraded, and both recover")
    func setAnswersTheFailedSave() async throws {
        let broker = try await LocalBroker.started()
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

            let lock = try await Self.lockDatabase(in: state)
            defer { lock.release() }
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

            lock.release()
            _ = try await daemon.client.set(
                device: "lamp", payload: ["brightness": .integer(70)], timeout: Self.timeout)
            let healthy = try await daemon.client.request("health_check", timeout: Self.timeout)
            #expect(healthy.objectValue?["database"]?.stringValue == "ok")
        }
    }
}
