import Foundation
import SessionEngine
import Testing
import TuyaCore
import YoullTestSupport

/// A session left paused is stopped after `Settings.maximumPause`, its end state applied,
/// so a forgotten sit does not keep the diffuser misting and maintenance alerts held.
@Suite("the timer module: a session paused too long is stopped", .timeLimit(.minutes(1)))
struct SessionPauseLimitTests {
    typealias Rig = TimerModuleTests.Rig
    static let mist = diffuser("mist")

    static func ended(_ announcement: SessionAnnouncement) -> Bool {
        if case .ended = announcement { true } else { false }
    }

    @Test("paused for the limit: stopped with the length it ran, the diffuser turned off, the alert hold released")
    func pausedTooLong() async throws {
        var settings = SessionService.Settings()
        settings.maximumPause = .seconds(3600)
        let clock = ManualClock()
        let controller = RecordingController(clock: clock, devices: [Self.mist])
        let rig = Rig(controller: controller, settings: settings, clock: clock)
        let started = try await rig.service.start(SessionStartRequest(preset: "calm", configuration: .minutes(20)))
        await rig.clock.waitForSleepers(1)
        rig.clock.advance(by: .seconds(300))
        _ = try await rig.service.pause()
        await rig.clock.waitForSleeper(dueAt: rig.clock.now.advanced(by: .seconds(3600)))
        rig.clock.advance(by: .seconds(3599))
        #expect(await rig.service.status()?.state == .paused, "a pause shorter than the limit changes nothing")

        rig.clock.advance(by: .seconds(1))
        let seen = try await rig.announcements(through: Self.ended)
        guard case .ended(let id, _, let state, let elapsed)? = seen.last else {
            Issue.record("no end announced: \(seen)")
            return
        }
        #expect(id == started.id && state == .stopped && elapsed == .seconds(300))
        #expect(await rig.service.status() == nil)
        let record = try #require(await rig.store.session(started.id))
        #expect(record.state == .stopped && record.elapsed == .seconds(300))
        #expect(rig.activeChanges.all == [true, false], "maintenance alerts are held no longer")
        // Returns once the end state went out: the diffuser does not mist on for a forgotten sit.
        await controller.waitForSend(of: .diffuser(DiffuserCommand(power: false, mist: false)), to: Self.mist.id)
    }

    @Test("a resume cancels the watch: the limit counts from the latest pause")
    func resumeRestartsTheCount() async throws {
        var settings = SessionService.Settings()
        settings.maximumPause = .seconds(3600)
        let rig = Rig(controller: nil, settings: settings)
        let open = SessionConfiguration(length: .openEnded(bellInterval: nil))
        _ = try await rig.service.start(SessionStartRequest(configuration: open))
        await rig.clock.waitForSleepers(1)
        _ = try await rig.service.pause()
        await rig.clock.waitForSleeper(dueAt: rig.clock.now.advanced(by: .seconds(3600)))
        rig.clock.advance(by: .seconds(3000))
        _ = try await rig.service.resume()
        _ = try await rig.service.pause()
        // The first watch is gone; the second is due an hour after the second pause.
        let second = rig.clock.now.advanced(by: .seconds(3600))
        await rig.clock.waitForSleeper(dueAt: second)
        #expect(rig.clock.armed == [second], "the first pause's watch was cancelled by the resume")
        rig.clock.advance(by: .seconds(3000))
        #expect(await rig.service.status()?.state == .paused, "3000 s after the second pause it is still paused")
        _ = try await rig.service.stop(immediately: true)
    }
}
