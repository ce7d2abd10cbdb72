import Foundation
import SessionEngine
import Synchronization
import Testing
import TuyaCore
import YoullTestSupport

/// The daemon stopping right after a session ended, or right after it started.
@Suite("the session service at daemon stop and start", .timeLimit(.minutes(1)))
struct SessionSuspendTests {
    @Test("a session that ended just before the daemon stops still records how its last commands settled")
    func endedSessionSettlesBeforeStop() async throws {
        let clock = ManualClock()
        let lamp = light("lamp")
        let controller = RecordingController(clock: clock, devices: [lamp])
        await controller.setConfirmed(.light(LightState(power: true, brightness: 33)), of: lamp.id)
        let rig = TimerModuleTests.Rig(controller: controller, clock: clock)
        let started = try await rig.service.start(
            SessionStartRequest(preset: "focus", configuration: .minutes(1), devices: ["lamp"]))
        try await withDeadline(30, "the start scene") {
            await controller.waitForSend(
                of: .light(LightCommand(power: true, brightness: 80, colorTemperature: 5000)), to: lamp.id)
        }
        // The device is slow to confirm everything after the start scene.
        await controller.holdSends()
        await rig.playOut()
        _ = try await rig.announcements { if case .ended = $0 { true } else { false } }

        let suspended = Task { await rig.service.suspend() }
        await controller.releaseSends()
        try await withDeadline(30, "the suspend") { await suspended.value }
        let log = await rig.store.cueLog(of: started.id)
        #expect(log.contains { $0.kind == .restore })
        #expect(log.allSatisfy { $0.outcome == .confirmed || $0.outcome == .marked }, "\(log.map(\.outcome))")
    }

    @Test("a session started while the daemon recovers is not taken for the previous daemon's")
    func startedDuringRecovery() async throws {
        let clock = ManualClock()
        let lamp = light("lamp")
        let controller = RecordingController(clock: clock, devices: [lamp])
        let rig = TimerModuleTests.Rig(controller: controller, clock: clock)
        let started = try await rig.service.start(
            SessionStartRequest(preset: "calm", configuration: .minutes(20), devices: ["lamp"]))
        await rig.service.recover()
        #expect(await rig.service.status()?.id == started.id)
        #expect(await rig.service.status()?.state == .running)
        _ = try await rig.service.stop(immediately: true)
        let seen = try await rig.announcements { if case .ended = $0 { true } else { false } }
        #expect(seen.last == .ended(started.id, preset: "calm", state: .stopped, elapsed: .zero), "not interrupted")
    }

    /// Every announcement, in order, as the service makes it.
    final class Announced: Sendable {
        let all = Mutex<[SessionAnnouncement]>([])
        func ends(of id: SessionID) -> Int {
            all.withLock { $0.filter { if case .ended(id, _, _, _) = $0 { true } else { false } }.count }
        }
    }

    @Test("a session that ends as the daemon stops, its events queued behind a slow write, is recorded ended once")
    func endRecordedOnce() async throws {
        let clock = ManualClock()
        let lamp = light("lamp")
        let controller = RecordingController(clock: clock, devices: [lamp])
        let store = InMemorySessionStore()
        let announced = Announced()
        let service = SessionService(
            tuyaController: controller, store: store, clock: clock,
            announce: { announcement in announced.all.withLock { $0.append(announcement) } },
            now: { TimerModuleTests.now })
        let started = try await service.start(
            SessionStartRequest(preset: "focus", configuration: .minutes(1), devices: ["lamp"]))
        try await withDeadline(30, "the session to end behind a held write") {
            await clock.waitForSleepers(1)
            await store.holdCues()
            clock.advance(by: .seconds(3600))
            // The runner is over; the service has not heard it yet (it waits on the held write).
            while true {
                let over = await service.status()?.state.isFinal == true
                if over, await store.holdsACue { break }
                await Task.yield()
            }
        }
        let suspended = Task { await service.suspend() }
        try await withDeadline(30, "suspend to record the end") {
            while announced.ends(of: started.id) == 0 { await Task.yield() }
        }
        await store.releaseCues()
        try await withDeadline(30, "the suspend") { await suspended.value }
        #expect(announced.ends(of: started.id) == 1)
        #expect(await store.cueLog(of: started.id).contains { $0.kind == .restore }, "its last cues are logged")
    }

    @Test("a session resumed without a removed device keeps its cue log, renumbered to the new plan")
    func renumberedLog() async throws {
        let clock = ManualClock()
        let (lamp, mist) = (light("lamp"), diffuser("mist"))
        let first = TimerModuleTests.Rig(
            controller: RecordingController(clock: clock, devices: [lamp, mist]), clock: clock)
        let started = try await first.service.start(
            SessionStartRequest(preset: "calm", configuration: .minutes(20), devices: ["lamp", "mist"]))
        await clock.waitForSleepers(1)
        await first.service.suspend()
        let before = await first.store.cueLog(of: started.id)
        #expect(before.contains { $0.deviceID == mist.id } && before.contains { $0.deviceID == lamp.id })

        // The next start: the diffuser was removed meanwhile.
        let store = first.store
        let second = SessionService(
            tuyaController: RecordingController(clock: clock, devices: [lamp]), store: store, clock: clock,
            now: { TimerModuleTests.now })
        await second.recover()
        let after = await store.cueLog(of: started.id)
        #expect(after.count == before.count, "nothing of the log is lost")
        let lampCues = after.filter { $0.deviceID == lamp.id || $0.deviceID == nil }
        let mistCues = after.filter { $0.deviceID == mist.id }
        #expect(Set(lampCues.map(\.cueIndex)).count == lampCues.count)
        #expect(mistCues.allSatisfy { cue in lampCues.allSatisfy { $0.cueIndex < cue.cueIndex } })
        _ = try await second.stop(immediately: true)
    }
}
