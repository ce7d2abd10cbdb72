import Foundation
import Testing
import TuyaCore

@testable import SessionEngine

@Suite("SessionPlanner")
struct SessionPlannerTests {
    let lamp = light("lamp")
    let mist = diffuser("mist")

    func plan(
        _ configuration: SessionConfiguration, preset: SessionPreset = .calm, devices: [TuyaDevice]? = nil,
        options: SessionPlanner.Options = .init()
    ) throws -> SessionTimeline {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return try SessionPlanner(options: options).plan(
            configuration, startingAt: Date(timeIntervalSince1970: 0), calendar: calendar, preset: preset,
            devices: devices ?? [lamp, mist])
    }

    func bellOffsets(_ timeline: SessionTimeline) -> [Duration] {
        timeline.cues.filter { if case .bell = $0.kind { $0.deviceID == nil } else { false } }.map(\.offset)
    }

    @Test("a 10 minute stage with a bell every 3 minutes rings at 3, 6 and 9")
    func bellsEveryThree() throws {
        let timeline = try plan(.minutes(10, bellEveryMinutes: 3))
        #expect(bellOffsets(timeline) == [.minutes(3), .minutes(6), .minutes(9)])
    }

    @Test("bells are counted without being made, and a session may ring at most one a minute for a day")
    func bellLimit() throws {
        for (length, interval) in [(600, 180), (600, 300), (600, 600), (601, 1), (86_400, 60)] {
            let stage = SessionStage(name: "s", length: .seconds(length), bellInterval: .seconds(interval))
            #expect(stage.bellCount == stage.bellOffsets.count, "\(length) s every \(interval) s")
        }
        let daily = SessionConfiguration(length: .openEnded(bellInterval: .seconds(60)))
        #expect(bellOffsets(try plan(daily)).count == 1_439)
        let everySecond = SessionConfiguration(length: .openEnded(bellInterval: .seconds(1)))
        #expect(throws: SessionError.tooManyBells(count: 86_399, limit: 1_440)) { try plan(everySecond) }
        let stages = SessionConfiguration(
            length: .stages(
                (0..<3).map { SessionStage(name: "s\($0)", length: .seconds(3_600), bellInterval: .seconds(2)) }))
        #expect(throws: SessionError.tooManyBells(count: 3 * 1_799, limit: 1_440)) { try plan(stages) }
    }

    @Test("a bell too close to the end rings without a light pulse, whose return would land in the end effect")
    func noPulseIntoTheEnd() throws {
        for preset in [SessionPreset.calm, .focus] {
            let stage = SessionStage(name: "sit", length: .seconds(600), bellInterval: .seconds(299.5))
            let timeline = try plan(SessionConfiguration(length: .stages([stage])), preset: preset)
            #expect(bellOffsets(timeline) == [.seconds(299.5), .seconds(599)], "both bells ring")
            let pulses = timeline.cues.filter { cue in
                guard cue.deviceID == lamp.id else { return false }
                if case .bell = cue.kind { return true }
                if case .bellReturn = cue.kind { return true }
                return false
            }
            #expect(pulses.map(\.offset).allSatisfy { $0 < .seconds(600) }, "\(preset.name): \(pulses.map(\.offset))")
            #expect(pulses.count == 2, "\(preset.name): the first bell's dip and return only")
        }
    }

    @Test("a bell every 5 minutes in a 10 minute stage rings at 5 only, not at the end")
    func noBellAtTheEnd() throws {
        let timeline = try plan(.minutes(10, bellEveryMinutes: 5))
        #expect(bellOffsets(timeline) == [.minutes(5)])
        let end = try #require(timeline.cues.first { $0.kind == .end })
        #expect(end.offset == .minutes(10))
    }

    @Test("bells count from the start of the stage, not from the warm-up")
    func warmUpShiftsBells() throws {
        let timeline = try plan(.minutes(10, bellEveryMinutes: 5, warmUpSeconds: 30))
        #expect(bellOffsets(timeline) == [.seconds(330)])
        #expect(timeline.cues.first { $0.kind == .stageStart(stage: 0) }?.offset == .seconds(30))
        #expect(timeline.cues.first { $0.kind == .end }?.offset == .seconds(630))
        #expect(timeline.session.phase(at: .seconds(10)) == .warmUp)
        #expect(timeline.session.phase(at: .seconds(30)) == .stage(index: 0, name: "meditation"))
    }

    @Test("each stage starts where the previous ended and counts its own bells")
    func stageBoundaries() throws {
        let configuration = SessionConfiguration(
            warmUp: .seconds(60),
            length: .stages([
                SessionStage(name: "breath", minutes: 5, bellEveryMinutes: 2),
                SessionStage(name: "body scan", minutes: 10, bellEveryMinutes: 4),
            ]))
        let timeline = try plan(configuration)
        let starts = timeline.cues.filter { if case .stageStart = $0.kind { true } else { false } }.map(\.offset)
        #expect(starts == [.seconds(60), .seconds(360)])
        #expect(bellOffsets(timeline) == [.seconds(180), .seconds(300), .seconds(600), .seconds(840)])
        #expect(timeline.end == .seconds(960))
        #expect(timeline.session.phase(at: .seconds(400)) == .stage(index: 1, name: "body scan"))
        // Bells are numbered per stage.
        let kinds = timeline.cues.filter { if case .bell = $0.kind { $0.deviceID == nil } else { false } }.map(\.kind)
        #expect(
            kinds == [
                .bell(stage: 0, ring: 1), .bell(stage: 0, ring: 2), .bell(stage: 1, ring: 1), .bell(stage: 1, ring: 2),
            ])
    }

    @Test("the start scene goes to every device of each role at the session start")
    func startScenes() throws {
        let timeline = try plan(.minutes(10), devices: [lamp, mist, light("lamp2")])
        let starts = timeline.cues.filter { $0.kind == .start }
        #expect(starts.allSatisfy { $0.offset == .zero })
        #expect(starts.map(\.deviceID) == [lamp.id, DeviceID("lamp2")!, mist.id])
        #expect(
            starts.first?.action == .send(.light(LightCommand(power: true, brightness: 35, colorTemperature: 2700))))
        #expect(starts.last?.action == .send(.diffuser(DiffuserCommand(power: true, mist: true))))
    }

    @Test("a light's bell dips below the scene brightness and returns to it 2 s later; diffusers get no bell")
    func bellDip() throws {
        let timeline = try plan(.minutes(10, bellEveryMinutes: 5))
        let dip = try #require(timeline.cues.first { $0.kind == .bell(stage: 0, ring: 1) && $0.deviceID == lamp.id })
        let back = try #require(timeline.cues.first { $0.kind == .bellReturn(stage: 0, ring: 1) })
        #expect(dip.offset == .minutes(5))
        #expect(dip.action == .send(.light(LightCommand(brightness: 14))))  // 40 % of 35
        #expect(back.offset == .minutes(5) + .seconds(2))
        #expect(back.action == .send(.light(LightCommand(brightness: 35))))
        #expect(!timeline.cues.contains { $0.deviceID == mist.id && $0.offset == .minutes(5) })
    }

    @Test("a sunrise writes brightness and temperature together and ends on the target")
    func sunriseSteps() throws {
        let timeline = try plan(.minutes(10))
        let steps = timeline.cues.filter { if case .rampStep = $0.kind { $0.deviceID == lamp.id } else { false } }
        #expect(steps.count == 60)
        for step in steps {
            guard case .send(.light(let command)) = step.action else {
                Issue.record("ramp step without a light command")
                continue
            }
            #expect(command.brightness != nil && command.colorTemperature != nil)
        }
        #expect(steps.last?.offset == .minutes(11))
        #expect(steps.last?.action == .send(.light(LightCommand(brightness: 80, colorTemperature: 4000))))
        #expect(steps.first?.kind == .rampStep(step: 1, of: 60))
    }

    @Test("ramp steps to a device are never closer than its frame gap, whatever else it receives")
    func rampsRespectFrameGap() throws {
        let slow = light("slow")
        let options = SessionPlanner.Options(defaultFrameGap: .seconds(1), frameGaps: [slow.id: .seconds(7)])
        let timeline = try plan(.minutes(3, bellEveryMinutes: 1), devices: [lamp, slow], options: options)
        for device in [lamp, slow] {
            let gap = options.frameGap(for: device.id)
            let offsets = timeline.cues.filter { $0.deviceID == device.id }.map(\.offset)
            for (earlier, later) in zip(offsets, offsets.dropFirst()) {
                #expect(later - earlier >= gap, "\(device.id): cues at \(earlier) and \(later)")
            }
        }
        let slowSteps = timeline.cues.filter { if case .rampStep = $0.kind { $0.deviceID == slow.id } else { false } }
        #expect(slowSteps.count == 8)  // 60 s at one step per 7 s
        #expect(slowSteps.last?.offset == .minutes(4))
    }

    @Test("a ramp never has more steps than the maximum, and repeated values are not sent")
    func coarseSteps() throws {
        let capped = try plan(.minutes(5), options: .init(maximumRampSteps: 10))
        #expect(capped.cues.filter { if case .rampStep = $0.kind { true } else { false } }.count == 10)

        let gentle = SessionPreset(
            name: "gentle",
            light: LightPreset(
                startScene: LightCommand(brightness: 50, colorTemperature: 3000),
                end: .sunrise(brightness: 53, kelvin: 3000, duration: .seconds(60))),
            diffuser: nil)
        let few = try plan(.minutes(5), preset: gentle)
        let values = few.cues.compactMap { cue -> Int? in
            guard case .rampStep = cue.kind, case .send(.light(let command)) = cue.action else { return nil }
            return command.brightness
        }
        #expect(values == [51, 52, 53])
    }

    @Test("a fade-out steps the brightness down and ends with the light off")
    func fadeOut() throws {
        let timeline = try plan(.minutes(20), preset: .sleep)
        let steps = timeline.cues.filter { if case .rampStep = $0.kind { true } else { false } }
        #expect(steps.last?.action == .send(.light(LightCommand(power: false))))
        #expect(steps.last?.offset == .minutes(25))
        let brightness = steps.dropLast().compactMap { cue -> Int? in
            if case .send(.light(let command)) = cue.action { command.brightness } else { nil }
        }
        #expect(brightness == brightness.sorted(by: >) && brightness.allSatisfy { $0 >= 1 && $0 < 15 })
    }

    @Test("a preset that restores captures the devices and ends with a restore cue each")
    func restore() throws {
        let timeline = try plan(.minutes(10), preset: .focus)
        #expect(timeline.devicesToCapture == [lamp.id, mist.id])
        let restores = timeline.cues.filter { $0.kind == .restore }
        #expect(restores.map(\.deviceID) == [lamp.id, mist.id])
        #expect(restores.allSatisfy { $0.offset == .minutes(10) && $0.action == .restoreCapturedState })
        #expect(timeline.finalActions == [lamp.id: .restoreCapturedState, mist.id: .restoreCapturedState])

        var after = SessionPreset.calm
        after.restoreAfterwards = true
        let sunriseThenRestore = try plan(.minutes(10), preset: after)
        let lastLamp = try #require(sunriseThenRestore.cues.last { $0.deviceID == lamp.id })
        #expect(lastLamp.kind == .restore && lastLamp.offset == .minutes(11) + .seconds(1))
    }

    @Test("cue indices follow firing order and the ending template keeps them")
    func indices() throws {
        let timeline = try plan(.minutes(10, bellEveryMinutes: 3))
        #expect(timeline.cues.map(\.index) == Array(0..<timeline.cues.count))
        #expect(zip(timeline.cues, timeline.cues.dropFirst()).allSatisfy { $0.offset <= $1.offset })
        for cue in timeline.endingCues {
            let placed = try #require(timeline.cues.first { $0.index == cue.index })
            #expect(placed.offset == cue.offset + timeline.end && placed.kind == cue.kind)
        }
    }

    @Test("an open-ended session plans bells up to the 24 h limit and ends when finished")
    func openEnded() throws {
        let timeline = try plan(SessionConfiguration(length: .openEnded(bellInterval: .minutes(30))))
        #expect(timeline.session.isOpenEnded)
        #expect(bellOffsets(timeline).count == 47)
        #expect(timeline.endingCues.first?.kind == .end && timeline.endingCues.first?.offset == .zero)
    }

    @Test("until HH:MM ends at the next local occurrence of that time, across a DST change")
    func untilTime() throws {
        var berlin = Calendar(identifier: .gregorian)
        berlin.timeZone = TimeZone(identifier: "Europe/Berlin")!
        // 2026-03-29 00:30 CET; clocks jump from 02:00 to 03:00 that night.
        let start = berlin.date(from: DateComponents(year: 2026, month: 3, day: 29, hour: 0, minute: 30))!
        let configuration = SessionConfiguration(
            warmUp: .seconds(60), length: .until(try TimeOfDay(parsing: "04:00"), bellInterval: nil))
        let session = try configuration.resolve(startingAt: start, calendar: berlin)
        #expect(session.end == .seconds(150 * 60))  // 2.5 real hours, not 3.5
        #expect(session.stages.first?.length == .seconds(149 * 60))

        // 23:00 asked at 23:30 means tomorrow.
        let late = berlin.date(from: DateComponents(year: 2026, month: 6, day: 1, hour: 23, minute: 30))!
        let tomorrow = try SessionConfiguration(length: .until(try TimeOfDay(parsing: "23:00"), bellInterval: nil))
            .resolve(startingAt: late, calendar: berlin)
        #expect(tomorrow.end == .seconds(23 * 3600 + 30 * 60))
    }

    // MARK: - Rejected configurations

    func rejection(_ configuration: SessionConfiguration) -> SessionError? {
        do {
            _ = try plan(configuration)
            return nil
        } catch {
            return error as? SessionError
        }
    }

    @Test("zero and negative durations are rejected, naming the field")
    func nonPositive() {
        let zero = rejection(.minutes(0))
        #expect(zero == .nonPositiveDuration(field: "stages[0].length", value: .zero))
        #expect(zero?.description == "stages[0].length must be longer than zero (got 0 s)")

        let negativeInterval = rejection(
            SessionConfiguration(
                length: .stages([SessionStage(name: "a", length: .minutes(5), bellInterval: .seconds(-60))])))
        #expect(negativeInterval?.description == "stages[0].interval must be longer than zero (got -60.0 s)")

        let negativeWarmUp = rejection(
            SessionConfiguration(warmUp: .seconds(-5), length: .stages([SessionStage(name: "a", minutes: 5)])))
        #expect(negativeWarmUp == .nonPositiveDuration(field: "warmUp", value: .seconds(-5)))
    }

    @Test("a session longer than 24 hours is rejected")
    func tooLong() {
        let error = rejection(
            SessionConfiguration(
                warmUp: .seconds(60),
                length: .stages([SessionStage(name: "a", minutes: 12 * 60), SessionStage(name: "b", minutes: 12 * 60)]))
        )
        #expect(error == .tooLong(total: .seconds(24 * 3600 + 60), limit: .seconds(24 * 3600)))
        #expect(error?.description.contains("24 h 1 min") == true)
        #expect(rejection(.minutes(24 * 60)) == nil)
    }

    @Test("an interval longer than its stage is rejected, naming the stage")
    func intervalTooLong() {
        let error = rejection(
            SessionConfiguration(
                length: .stages([
                    SessionStage(name: "a", minutes: 10), SessionStage(name: "b", minutes: 5, bellEveryMinutes: 6),
                ])))
        #expect(
            error == .intervalLongerThanStage(field: "stages[1].interval", interval: .minutes(6), stage: .minutes(5)))
        #expect(
            error?.description
                == "stages[1].interval: a bell every 6 min never rings in a stage of 5 min; use a shorter interval")
    }

    @Test("empty stage lists and bad stage names are rejected")
    func namesAndEmpty() {
        #expect(rejection(SessionConfiguration(length: .stages([]))) == .noStages)
        let blank = rejection(SessionConfiguration(length: .stages([SessionStage(name: "  ", minutes: 5)])))
        #expect(blank?.description == "stages[0].name: \"  \" is not a valid name (it is empty)")
        let colon = rejection(SessionConfiguration(length: .stages([SessionStage(name: "a:b", minutes: 5)])))
        if case .invalidName(let field, _, _) = colon {
            #expect(field == "stages[0].name")
        } else {
            Issue.record("not rejected")
        }
        let control = rejection(SessionConfiguration(length: .stages([SessionStage(name: "a\u{7}", minutes: 5)])))
        #expect(control != nil)
        let long = rejection(
            SessionConfiguration(length: .stages([SessionStage(name: String(repeating: "x", count: 41), minutes: 5)])))
        #expect(long != nil)
    }

    @Test("until text that is not a time of day is rejected with what to write")
    func badTimeOfDay() {
        for text in ["24:00", "7", "07:5", "aa:bb", "07:30:00", "-1:30", "٠٧:٣٠"] {
            #expect(throws: SessionError.invalidTimeOfDay(text)) { try TimeOfDay(parsing: text) }
        }
        #expect((try? TimeOfDay(parsing: "7:05"))?.description == "07:05")
        #expect(SessionError.invalidTimeOfDay("x").description.contains("HH:MM"))
    }

    @Test("an until time inside the warm-up is rejected")
    func untilTooSoon() throws {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let configuration = SessionConfiguration(
            warmUp: .seconds(600), length: .until(try TimeOfDay(parsing: "00:05"), bellInterval: nil))
        #expect(throws: SessionError.untilTooSoon(until: "00:05", warmUp: .seconds(600))) {
            try configuration.resolve(startingAt: Date(timeIntervalSince1970: 0), calendar: utc)
        }
    }

    @Test("presets with impossible values are rejected, naming the field")
    func badPresets() {
        var preset = SessionPreset.calm
        preset.light?.end = .sunrise(brightness: 120, kelvin: 4000, duration: .seconds(60))
        #expect(throws: SessionError.valueOutOfRange(field: "calm.light.end.brightness", value: 120, range: 1...100)) {
            try preset.validate()
        }
        preset = .calm
        preset.light?.startScene.brightness = nil
        #expect(throws: SessionError.self) { try preset.validate() }
        preset = .calm
        preset.light?.bell = .dip(percentOfScene: 40, duration: .zero)
        #expect(throws: SessionError.nonPositiveDuration(field: "calm.light.bell.duration", value: .zero)) {
            try preset.validate()
        }
        preset = .calm
        preset.name = "Calm Evening"
        #expect(throws: SessionError.self) { try preset.validate() }
        for builtIn in SessionPreset.builtIns { #expect(throws: Never.self) { try builtIn.validate() } }
    }
}
