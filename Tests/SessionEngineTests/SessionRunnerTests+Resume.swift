import Foundation
import Testing
import TuyaCore
import YoullTestSupport

@testable import SessionEngine

/// Resuming after a restart: the session went on while the daemon was down, or it was paused.
extension SessionRunnerTests {
    @Test("a session resumed after downtime plays no missed bell late; each device gets the last cue it missed")
    func resumeAfterDowntime() async throws {
        let plan = try timeline(.minutes(6, bellEveryMinutes: 2), devices: [lamp, mist])
        let controller = RecordingController(clock: clock, devices: [lamp, mist])
        let runner = SessionRunner(timeline: plan, controller: controller, clock: clock)
        var events = await runner.events().makeAsyncIterator()
        // Saved at 1 min; the daemon was down until 4 min 5 s: the bells at 2 and 4 min (each a
        // dip and a return 2 s later) fell due meanwhile.
        let fired = Set(plan.cues.filter { $0.offset < .minutes(1) }.map(\.index))
        try await runner.start(
            resuming: .init(elapsed: .minutes(4) + .seconds(5), firedCues: fired, missedSince: .minutes(1)))
        await advance(runner, to: plan.cues.map { $0.offset - .minutes(4) - .seconds(5) })
        _ = await drain(&events)

        // The lamp gets the return of the 4-minute bell at once, nothing of the 2-minute one.
        #expect(await controller.sent(to: lamp.id).map(\.command) == [.light(LightCommand(brightness: 50))])
        #expect(await controller.sent(to: lamp.id).first?.at == .zero)
        let logged = await runner.cueLog()
        #expect(!logged.contains { $0.kind == .bell(stage: 0, ring: 1) }, "a missed bell does not ring late")
        #expect(logged.contains { $0.kind == .bellReturn(stage: 0, ring: 2) && $0.deviceID == lamp.id })
        #expect(!logged.contains { $0.kind == .bellReturn(stage: 0, ring: 1) })
        #expect(logged.filter { $0.planned >= .minutes(4) + .seconds(5) }.allSatisfy { $0.lateness == .zero })
    }

    @Test("a session paused across a restart starts paused: nothing plays until it is resumed")
    func resumePaused() async throws {
        let plan = try timeline(.minutes(6, bellEveryMinutes: 2), devices: [lamp, mist])
        let controller = RecordingController(clock: clock, devices: [lamp, mist])
        let runner = SessionRunner(timeline: plan, controller: controller, clock: clock)
        var events = await runner.events().makeAsyncIterator()
        let fired = Set(plan.cues.filter { $0.offset < .minutes(1) }.map(\.index))
        try await runner.start(resuming: .init(elapsed: .minutes(1), firedCues: fired, paused: true))
        let started = await next(&events) { if case .started = $0 { true } else { false } }
        if case .started(let status, _)? = started { #expect(status.state == .paused) }
        #expect(await next(&events) { $0 == .paused(elapsed: .minutes(1)) } != nil)
        clock.advance(by: .minutes(10))
        #expect(await runner.status().state == .paused)
        #expect(await runner.status().elapsed == .minutes(1))
        #expect(await controller.sent(to: lamp.id).isEmpty)

        try await runner.resume()
        let origin = clock.now.offset - .minutes(1)
        await advance(runner, to: plan.cues.map { origin + $0.offset })
        _ = await drain(&events)
        #expect(await runner.status().state == .completed)
        #expect(await runner.cueLog().contains { $0.kind == .bell(stage: 0, ring: 1) && $0.lateness == .zero })
    }
}
