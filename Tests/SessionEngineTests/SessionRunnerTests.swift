import Foundation
import Synchronization
import Testing
import TuyaCore
import YoullTestSupport

@testable import SessionEngine

/// The runner on a manual clock against a recording fake controller: no real time passes.
@Suite("SessionRunner", .timeLimit(.minutes(1)))
struct SessionRunnerTests {
    let lamp = light("lamp")
    let mist = diffuser("mist")
    let clock = ManualClock()

    /// Dims on bells, no end effect: the small timeline most tests need.
    static let plain = SessionPreset(
        name: "plain",
        light: LightPreset(
            startScene: LightCommand(power: true, brightness: 50, colorTemperature: 3000),
            bell: .dip(percentOfScene: 50, duration: .seconds(2))),
        diffuser: DiffuserPreset(startScene: DiffuserCommand(power: true, mist: true), end: .fadeOut))

    func timeline(_ configuration: SessionConfiguration, preset: SessionPreset = plain, devices: [TuyaDevice])
        throws -> SessionTimeline
    {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return try SessionPlanner().plan(
            configuration, startingAt: Date(timeIntervalSince1970: 0), calendar: calendar, preset: preset,
            devices: devices)
    }

    /// Moves the clock to each given time (from the clock's zero), one at a time, after
    /// the runner has armed its timer.
    func advance(_ runner: SessionRunner, to times: [Duration]) async {
        for time in times where time > clock.now.offset {
            // A runner that ended early never sleeps again: stop advancing, so the test
            // fails on its expectations instead of hanging.
            let clock = clock
            let armed = await firstOf({ await clock.waitForSleepers() }, or: { await runner.waitUntilEnded() })
            guard armed else { return }
            await runner.waitUntilSendsSettle()
            clock.advance(by: time - clock.now.offset)
        }
    }

    /// Reads events until one matches; fails the test if the stream ends first.
    func next(
        _ events: inout AsyncStream<SessionEvent>.AsyncIterator, where match: (SessionEvent) -> Bool
    ) async -> SessionEvent? {
        while let event = await events.next() {
            if match(event) { return event }
        }
        Issue.record("the event stream ended first")
        return nil
    }

    /// Reads events to the end of the stream.
    func drain(_ events: inout AsyncStream<SessionEvent>.AsyncIterator) async -> [SessionEvent] {
        var all: [SessionEvent] = []
        while let event = await events.next() { all.append(event) }
        return all
    }

    @Test("every cue fires at its planned deadline and the session completes")
    func everyCueOnTime() async throws {
        let plan = try timeline(
            .minutes(3, bellEveryMinutes: 1, warmUpSeconds: 20), preset: .calm, devices: [lamp, mist])
        let controller = RecordingController(clock: clock, devices: [lamp, mist])
        let runner = SessionRunner(timeline: plan, controller: controller, clock: clock)
        var events = await runner.events().makeAsyncIterator()
        try await runner.start()
        await advance(runner, to: plan.cues.map(\.offset))
        let all = await drain(&events)

        let log = await runner.cueLog()
        #expect(log.map(\.cueIndex) == plan.cues.map(\.index))
        #expect(log.allSatisfy { $0.actual == $0.planned && $0.lateness == .zero })
        #expect(log.allSatisfy { $0.outcome == .confirmed || $0.outcome == .marked })
        // Each device received its cues' commands, in order, at the cue's time.
        for device in [lamp, mist] {
            let planned = plan.cues.filter { $0.deviceID == device.id }
            let sent = await controller.sent(to: device.id)
            #expect(
                sent.map { DeviceCommand?.some($0.command) }
                    == planned.map { cue -> DeviceCommand? in
                        if case .send(let command) = cue.action { command } else { nil }
                    })
            #expect(sent.map(\.at) == planned.map(\.offset))
        }
        #expect(all.contains(.ended(.completed, elapsed: plan.totalDuration)))
        let phases = all.compactMap { if case .phaseChanged(let phase) = $0 { phase } else { nil } }
        #expect(phases == [.warmUp, .stage(index: 0, name: "meditation"), .ending, .finished])
        #expect(await runner.status().state == .completed)
    }

    @Test("pause freezes the session and resume shifts every remaining deadline by the pause")
    func pauseShiftsDeadlines() async throws {
        let plan = try timeline(.minutes(10, bellEveryMinutes: 3), devices: [lamp])
        let controller = RecordingController(clock: clock, devices: [lamp])
        let runner = SessionRunner(timeline: plan, controller: controller, clock: clock)
        var events = await runner.events().makeAsyncIterator()
        try await runner.start()
        await advance(runner, to: [.seconds(100)])
        try await runner.pause()
        clock.advance(by: .seconds(1000))  // clock at 1100 s; the session stays at 100 s
        let paused = await runner.status()
        #expect(paused.state == .paused && paused.elapsed == .seconds(100) && paused.remaining == .seconds(500))
        #expect(paused.nextBell == .seconds(80))

        try await runner.resume()
        await advance(runner, to: [.seconds(1180)])
        _ = await next(&events) {
            if case .cueSettled(let record) = $0 { record.kind == .bell(stage: 0, ring: 1) } else { false }
        }
        let dip = try #require(await controller.sent(to: lamp.id).last)
        #expect(dip.at == .seconds(1180))  // 180 s of session time, 1000 s later
        #expect(dip.command == .light(LightCommand(brightness: 25)))

        await advance(runner, to: plan.cues.map { $0.offset + .seconds(1000) })
        _ = await drain(&events)
        let log = await runner.cueLog()
        #expect(log.count == plan.cues.count)
        #expect(log.allSatisfy { $0.lateness == .zero })
        #expect(await controller.sent(to: lamp.id).map(\.at).last == .seconds(1000) + .minutes(9) + .seconds(2))
    }

    @Test("the status lists every device the session drives, before any of its cues fired too (timer stop --json)")
    func statusListsDevicesBeforeCues() async throws {
        let plan = try timeline(.minutes(10, bellEveryMinutes: 1), preset: .calm, devices: [lamp, mist])
        let controller = RecordingController(clock: clock, devices: [lamp, mist])
        let runner = SessionRunner(timeline: plan, controller: controller, clock: clock)
        #expect(Set(await runner.status().devices.keys) == Set(plan.deviceIDs))
        #expect(!plan.deviceIDs.isEmpty)
        #expect(await runner.status().devices.values.allSatisfy { $0.sent == 0 && $0.skipped == 0 })
    }

    @Test("stop cancels every pending cue: nothing fires after it however far the clock moves")
    func stopCancels() async throws {
        let plan = try timeline(.minutes(10, bellEveryMinutes: 1), preset: .calm, devices: [lamp, mist])
        let controller = RecordingController(clock: clock, devices: [lamp, mist])
        let runner = SessionRunner(timeline: plan, controller: controller, clock: clock)
        var events = await runner.events().makeAsyncIterator()
        try await runner.start()
        await advance(runner, to: [.minutes(1), .seconds(150)])
        let sentBefore = await controller.sent.count
        try await runner.stop()
        clock.advance(by: .seconds(24 * 3600))

        let rest = await drain(&events)
        let afterStop = rest.drop { $0 != .ended(.stopped, elapsed: .seconds(150)) }
        #expect(afterStop.first == .ended(.stopped, elapsed: .seconds(150)))
        #expect(!afterStop.contains { if case .cueFired = $0 { true } else { false } })
        #expect(await controller.sent.count == sentBefore)
        #expect(await runner.cueLog().allSatisfy { $0.planned <= .seconds(150) })
        #expect(await runner.status().phase == .finished)
        await #expect(throws: SessionError.invalidTransition(action: "resume", state: .stopped)) {
            try await runner.resume()
        }
    }

    @Test("a cue that is due while stop happens does not fire (generation check after every suspension)")
    func stopDuringFiring() async throws {
        let plan = try timeline(.minutes(10, bellEveryMinutes: 5), devices: [lamp])
        let controller = RecordingController(clock: clock, devices: [lamp])
        let runner = SessionRunner(timeline: plan, controller: controller, clock: clock)
        try await runner.start()
        await clock.waitForSleepers()
        await runner.waitUntilSendsSettle()
        await controller.holdStatus()
        clock.advance(by: .minutes(5))  // the bell is due; the runner asks for the lamp's status
        await controller.waitUntilStatusHeld()
        try await runner.stop()
        await controller.releaseStatus()

        var events = await runner.events().makeAsyncIterator()
        _ = await drain(&events)
        #expect(await controller.sent.map(\.at) == [.zero])  // only the start scene
        #expect(!(await runner.cueLog()).contains { $0.planned == .minutes(5) && $0.deviceID != nil })
    }

    @Test("an offline device's cues are skipped, its commands still queued, and the session goes on")
    func offlineDeviceSkipped() async throws {
        let hall = light("hall")
        let plan = try timeline(.minutes(4, bellEveryMinutes: 2), devices: [lamp, hall, mist])
        let controller = RecordingController(clock: clock, devices: [lamp, hall, mist])
        await controller.setAvailability(.offline, of: hall.id)
        await controller.failSends(to: mist.id, with: .confirmationTimeout(device: mist.id, pending: []))
        let runner = SessionRunner(timeline: plan, controller: controller, clock: clock)
        var events = await runner.events().makeAsyncIterator()
        try await runner.start()
        await advance(runner, to: plan.cues.map(\.offset))
        let all = await drain(&events)

        #expect(all.contains(.ended(.completed, elapsed: plan.totalDuration)))
        let log = await runner.cueLog()
        let hallCues = log.filter { $0.deviceID == hall.id }
        #expect(hallCues.count == 3 && hallCues.allSatisfy { $0.outcome == .skipped(.unavailable(.offline)) })
        // The offline light still got every command, so its desired state catches up.
        #expect(await controller.sent(to: hall.id).count == 3)
        #expect(log.filter { $0.deviceID == lamp.id }.allSatisfy { $0.outcome == .confirmed })
        // The online diffuser that never confirms: skipped once its send gives up.
        let mistCues = log.filter { $0.deviceID == mist.id }
        #expect(mistCues.count == 2)
        #expect(
            mistCues.allSatisfy {
                if case .skipped(.notApplied(let reason)) = $0.outcome {
                    reason.contains("mist has not confirmed")
                } else {
                    false
                }
            })
        let status = await runner.status()
        #expect(status.devices[hall.id] == DeviceOutcome(skipped: 3))
        #expect(status.devices[lamp.id] == DeviceOutcome(sent: 3, confirmed: 3))
        #expect(status.skippedCues == 5)
    }

    @Test("a restarted session resumes from its elapsed time and fires no cue twice")
    func resumeFromElapsed() async throws {
        let plan = try timeline(.minutes(6, bellEveryMinutes: 2), devices: [lamp, mist])
        // First run: up to 4 min (the bell at 4 min has fired, its return has not).
        let first = RecordingController(clock: clock, devices: [lamp, mist])
        let runner = SessionRunner(timeline: plan, controller: first, clock: clock)
        var firstEvents = await runner.events().makeAsyncIterator()
        try await runner.start()
        await advance(runner, to: [.minutes(2), .minutes(2) + .seconds(2), .minutes(4)])
        _ = await next(&firstEvents) {
            if case .cueFired(let record) = $0 {
                record.kind == .bell(stage: 0, ring: 2) && record.deviceID != nil
            } else {
                false
            }
        }
        try await runner.stop()
        let fired = Set(await runner.cueLog().map(\.cueIndex))

        // The daemon comes back 30 minutes of clock later.
        clock.advance(by: .minutes(30))
        let second = RecordingController(clock: clock, devices: [lamp, mist])
        let restarted = SessionRunner(id: runner.id, timeline: plan, controller: second, clock: clock)
        var events = await restarted.events().makeAsyncIterator()
        try await restarted.start(resuming: .init(elapsed: .minutes(4), firedCues: fired))
        let origin = clock.now.offset - .minutes(4)
        await advance(restarted, to: plan.cues.map { origin + $0.offset })
        _ = await drain(&events)

        let refired = Set(await restarted.cueLog().map(\.cueIndex))
        #expect(refired.isDisjoint(with: fired))
        #expect(refired.union(fired) == Set(plan.cues.map(\.index)))
        // The lamp gets only the return of the bell that fired before the restart.
        #expect(await second.sent(to: lamp.id).map(\.command) == [.light(LightCommand(brightness: 50))])
        #expect(await restarted.cueLog().allSatisfy { $0.lateness == .zero })
    }

    @Test("restore puts each device back into the state it confirmed at the start")
    func restoresCapturedState() async throws {
        let plan = try timeline(.minutes(2), preset: .focus, devices: [lamp, mist])
        let controller = RecordingController(clock: clock, devices: [lamp, mist])
        await controller.setConfirmed(
            .light(LightState(power: true, mode: "white", brightness: 55, colorTemperature: 3000)), of: lamp.id)
        await controller.setConfirmed(.diffuser(DiffuserState(power: false, mist: false)), of: mist.id)
        let runner = SessionRunner(timeline: plan, controller: controller, clock: clock)
        var events = await runner.events().makeAsyncIterator()
        try await runner.start()
        await advance(runner, to: plan.cues.map(\.offset))
        let all = await drain(&events)

        #expect(
            await controller.sent(to: lamp.id).last?.command
                == .light(LightCommand(power: true, brightness: 55, colorTemperature: 3000)))
        #expect(
            await controller.sent(to: mist.id).last?.command == .diffuser(DiffuserCommand(power: false, mist: false)))
        #expect(all.contains { if case .started(_, let captured) = $0 { captured.count == 2 } else { false } })
    }

    @Test("a restore with nothing captured is skipped, not sent")
    func restoreWithoutCapture() async throws {
        let plan = try timeline(.minutes(1), preset: .focus, devices: [lamp])
        let controller = RecordingController(clock: clock, devices: [lamp])
        let runner = SessionRunner(timeline: plan, controller: controller, clock: clock)
        var events = await runner.events().makeAsyncIterator()
        try await runner.start()
        await advance(runner, to: plan.cues.map(\.offset))
        _ = await drain(&events)
        #expect(await runner.cueLog().last?.outcome == .skipped(.nothingCaptured))
        #expect(await controller.sent.count == 1)
    }

    @Test("an open-ended session plays its end effect from the moment it is finished")
    func finishOpenEnded() async throws {
        let plan = try timeline(
            SessionConfiguration(length: .openEnded(bellInterval: .minutes(1))), preset: .calm, devices: [lamp])
        let controller = RecordingController(clock: clock, devices: [lamp])
        let runner = SessionRunner(timeline: plan, controller: controller, clock: clock)
        var events = await runner.events().makeAsyncIterator()
        try await runner.start()
        #expect(await runner.status().remaining == nil)
        await advance(runner, to: [.minutes(1), .minutes(1) + .seconds(2), .seconds(90)])
        try await runner.finish()
        await advance(runner, to: plan.endingCues.map { .seconds(90) + $0.offset })
        let all = await drain(&events)

        #expect(all.contains(.ended(.completed, elapsed: .seconds(150))))
        let log = await runner.cueLog()
        #expect(log.first { $0.kind == .end }?.actual == .seconds(90))
        #expect(!log.contains { $0.kind == .bell(stage: 0, ring: 2) })
        #expect(
            await controller.sent(to: lamp.id).last?.command
                == .light(LightCommand(brightness: 80, colorTemperature: 4000)))
    }

    @Test("status reports phase, elapsed, remaining and the next bell")
    func statusSnapshot() async throws {
        let plan = try timeline(.minutes(10, bellEveryMinutes: 4, warmUpSeconds: 30), devices: [lamp])
        let controller = RecordingController(clock: clock, devices: [lamp])
        let runner = SessionRunner(timeline: plan, controller: controller, clock: clock)
        try await runner.start()
        await advance(runner, to: [.seconds(20)])
        var status = await runner.status()
        #expect(status.phase == .warmUp && status.elapsed == .seconds(20))
        #expect(status.remaining == .seconds(610) && status.nextBell == .seconds(250))
        await advance(runner, to: [.seconds(30), .seconds(100)])
        status = await runner.status()
        #expect(status.phase == .stage(index: 0, name: "meditation"))
        #expect(status.nextBell == .seconds(170))
        await #expect(throws: SessionError.invalidTransition(action: "start", state: .running)) {
            try await runner.start()
        }
    }
}

/// Whether `first` returned before `second`. The loser keeps running in an unstructured
/// task: the clock's waits cannot be cancelled, and a task group would wait for it.
func firstOf(
    _ first: @escaping @Sendable () async -> Void, or second: @escaping @Sendable () async -> Void
) async -> Bool {
    let race = Race()
    return await withCheckedContinuation { continuation in
        race.waiter.withLock { $0 = continuation }
        Task {
            await first()
            race.finish(true)
        }
        Task {
            await second()
            race.finish(false)
        }
    }
}

private final class Race: Sendable {
    let waiter = Mutex<CheckedContinuation<Bool, Never>?>(nil)

    func finish(_ result: Bool) { waiter.withLock { $0.take() }?.resume(returning: result) }
}
