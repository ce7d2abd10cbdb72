import Foundation
import SessionEngine
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
}
