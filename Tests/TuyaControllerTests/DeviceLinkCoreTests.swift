import Testing
import TuyaCore
import YoullTestSupport

@testable import TuyaController

/// The transport-free link core, driven by hand: commands, reports, link changes and time
/// go in as values, and the actions that come out are what every link performs.
@Suite("DeviceLinkCore")
struct DeviceLinkCoreTests {
    static let power = Fixtures.dp(1)
    static let brightness = Fixtures.dp(2)
    static let id = DeviceID("bf00000000000000000001")!

    static func core(desired: DataPoints = [:], confirmed: DataPoints = [:]) -> DeviceLinkCore {
        var profile = Fixtures.whiteBulb
        profile.frameGapMilliseconds = 300
        return DeviceLinkCore(
            device: TuyaDevice(id: id, name: "lamp", profileID: profile.id, category: .light, transport: .mqtt),
            profile: profile, confirmationTimeout: .seconds(5), desired: desired, confirmed: confirmed)
    }

    static func transmitted(_ actions: [DeviceLinkCore.Action]) -> [DataPoints] {
        actions.compactMap { if case .transmit(let values) = $0 { values } else { nil } }
    }

    static func completions(_ actions: [DeviceLinkCore.Action]) -> [(CommandQueue.Ticket, Bool)] {
        actions.compactMap { action in
            guard case .complete(let ticket, let result) = action else { return nil }
            if case .success = result { return (ticket, true) }
            return (ticket, false)
        }
    }

    static func announcements(_ actions: [DeviceLinkCore.Action]) -> [ControllerEvent] {
        actions.compactMap { if case .announce(let event) = $0 { event } else { nil } }
    }

    @Test("nothing goes out before the link can carry frames, then one frame carries the command")
    func holdsUntilResumed() {
        var core = Self.core()
        let (ticket, actions) = core.send([Self.power: .bool(true)], now: .zero)
        #expect(Self.transmitted(actions).isEmpty)
        guard case .desiredChanged(let desired) = actions.first else {
            Issue.record("the desired values are persisted first, got \(actions)")
            return
        }
        #expect(desired == [Self.power: .bool(true)])
        let released = core.resume(now: .seconds(1))
        #expect(Self.transmitted(released) == [[Self.power: .bool(true)]])
        let confirmed = core.receive(report: [Self.power: .bool(true)], now: .seconds(1))
        #expect(Self.completions(confirmed).map(\.0) == [ticket])
        #expect(Self.completions(confirmed).map(\.1) == [true])
        #expect(Self.announcements(confirmed).contains { if case .stateChanged = $0 { true } else { false } })
    }

    @Test("a command the device never confirms fails at its deadline and stays desired")
    func timesOut() {
        var core = Self.core()
        _ = core.resume(now: .zero)
        let (ticket, _) = core.send([Self.brightness: .value(100)], now: .zero)
        #expect(core.nextWake == .seconds(5))
        #expect(Self.completions(core.tick(now: .seconds(4))).isEmpty)
        let late = core.tick(now: .seconds(5))
        #expect(Self.completions(late).map(\.0) == [ticket])
        #expect(Self.completions(late).map(\.1) == [false])
        #expect(core.desired[Self.brightness] == .value(100))
    }

    @Test("after a new link session the first report re-applies only the desired values that differ")
    func reconcilesAfterTheLinkIsEstablished() {
        var core = Self.core(desired: [Self.power: .bool(true), Self.brightness: .value(200)])
        _ = core.resume(now: .zero)
        let online = core.setAvailability(.online, hint: nil)
        #expect(Self.announcements(online).count == 1)
        let actions = core.receive(report: [Self.power: .bool(true), Self.brightness: .value(50)], now: .zero)
        #expect(Self.transmitted(actions) == [[Self.brightness: .value(200)]])
        // A later report while connected is a change made at the device: it becomes desired.
        _ = core.receive(report: [Self.brightness: .value(200)], now: .seconds(1))
        let pressed = core.receive(report: [Self.power: .bool(false)], now: .seconds(2))
        #expect(Self.transmitted(pressed).isEmpty)
        #expect(core.desired[Self.power] == .bool(false))
    }

    @Test("a value sent on this link session is not written again by reconciliation")
    func doesNotRewriteWhatItJustSent() {
        var core = Self.core(desired: [Self.power: .bool(true)])
        core.linkEstablished()
        _ = core.send([Self.brightness: .value(90)], now: .zero)
        let sent = core.resume(now: .zero)
        #expect(Self.transmitted(sent) == [[Self.brightness: .value(90)]])
        let actions = core.receive(
            report: [Self.power: .bool(false), Self.brightness: .value(40)], now: .milliseconds(100))
        // The power is re-applied once the frame gap allows; the brightness just sent waits
        // for its own report.
        #expect(Self.transmitted(actions).isEmpty)
        let later = core.tick(now: .milliseconds(300))
        #expect(Self.transmitted(later) == [[Self.power: .bool(true)]])
    }

    @Test("availability is announced only when it changes, with its hint")
    func announcesAvailabilityChanges() {
        var core = Self.core()
        #expect(Self.announcements(core.setAvailability(.offline, hint: "no answer")).count == 1)
        #expect(core.setAvailability(.offline, hint: "no answer").isEmpty)
        #expect(Self.announcements(core.setAvailability(.offline, hint: "broker lost")).count == 1)
        #expect(core.status.hint == "broker lost")
    }

    @Test("stopping fails every waiting command")
    func stopFailsWaiters() {
        var core = Self.core()
        let (first, _) = core.send([Self.power: .bool(true)], now: .zero)
        let (second, _) = core.send([Self.brightness: .value(30)], now: .zero)
        let stopped = core.stop()
        #expect(Self.completions(stopped).map(\.0) == [first, second])
        #expect(Self.completions(stopped).allSatisfy { !$0.1 })
    }

    @Test("saved values are the state before the device answers, and are not announced again before it comes online")
    func savedStateIsKnownAndQuiet() {
        var core = Self.core(confirmed: [Self.power: .bool(true), Self.brightness: .value(120)])
        guard case .light(let light) = core.confirmedState else {
            Issue.record("a light state")
            return
        }
        #expect(light.power == true)
        let same = core.receive(report: [Self.power: .bool(true)], now: .zero)
        #expect(Self.announcements(same).isEmpty)
    }

    @Test(
        "the first report after the device comes back online is announced even when unchanged (usage hours wait for it)"
    )
    func firstReportAfterReconnectIsAnnounced() {
        var core = Self.core()
        _ = core.setAvailability(.online, hint: nil)
        let on: DataPoints = [Self.power: .bool(true), Self.brightness: .value(120)]
        #expect(Self.announcements(core.receive(report: on, now: .zero)).count == 1)
        #expect(Self.announcements(core.receive(report: on, now: .seconds(1))).isEmpty, "unchanged while online")
        _ = core.setAvailability(.offline, hint: "no answer")
        _ = core.setAvailability(.online, hint: nil)
        let again = Self.announcements(core.receive(report: on, now: .seconds(70)))
        #expect(again.count == 1)
        #expect(again.first.map { if case .stateChanged = $0 { true } else { false } } == true, "\(again)")
    }

    static func core(startedAt: Duration, desired: DataPoints, confirmed: DataPoints) -> DeviceLinkCore {
        var profile = Fixtures.whiteBulb
        profile.frameGapMilliseconds = 300
        return DeviceLinkCore(
            device: TuyaDevice(id: id, name: "lamp", profileID: profile.id, category: .light, transport: .mqtt),
            profile: profile, confirmationTimeout: .seconds(5), desired: desired, confirmed: confirmed,
            startedAt: startedAt)
    }

    @Test("after a restart a replayed report older than the link's start never becomes desired or reported")
    func replayAfterRestartIsNotAdopted() {
        var core = Self.core(
            startedAt: .seconds(100), desired: [Self.power: .bool(false)], confirmed: [Self.power: .bool(false)])
        _ = core.resume(now: .seconds(100))
        _ = core.setAvailability(.online, hint: nil)
        #expect(
            Self.transmitted(
                core.receive(report: [Self.power: .bool(false)], emittedAt: .seconds(100), now: .seconds(100))
            ).isEmpty)
        let replay = core.receive(report: [Self.power: .bool(true)], emittedAt: .seconds(40), now: .seconds(101))
        #expect(replay.isEmpty)
        #expect(core.desired[Self.power] == .bool(false))
        #expect(core.reported[Self.power] == .bool(false))
        #expect(core.staleReports == 1)
        // A change made at the device after the link began is still adopted.
        _ = core.receive(report: [Self.power: .bool(true)], emittedAt: .seconds(160), now: .seconds(160))
        #expect(core.desired[Self.power] == .bool(true))
    }

    @Test(
        "a report emitted before the last write cannot confirm it; one in the same breath is not adopted, one after the answer is"
    )
    func staleReportDoesNotConfirm() {
        var core = Self.core(startedAt: .zero, desired: [:], confirmed: [Self.power: .bool(true)])
        _ = core.resume(now: .zero)
        _ = core.setAvailability(.online, hint: nil)
        _ = core.receive(report: [Self.power: .bool(true)], emittedAt: .zero, now: .zero)
        let (ticket, sent) = core.send([Self.power: .bool(false)], now: .seconds(30))
        #expect(Self.transmitted(sent) == [[Self.power: .bool(false)]])
        // A recording from before the command carries the value asked for: it proves nothing.
        let replay = core.receive(report: [Self.power: .bool(false)], emittedAt: .seconds(10), now: .seconds(31))
        #expect(Self.completions(replay).isEmpty)
        // The old value reported in the same breath as the write is not taken as the user's wish.
        _ = core.receive(report: [Self.power: .bool(true)], emittedAt: .seconds(30), now: .seconds(30))
        #expect(core.desired[Self.power] == .bool(false))
        let real = core.receive(report: [Self.power: .bool(false)], emittedAt: .seconds(31), now: .seconds(31))
        #expect(Self.completions(real).map(\.0) == [ticket])
        // After the answer, a change the device makes by itself (a tank that ran dry, a
        // button) is newer than the write, though its whole-second time is the same.
        _ = core.receive(report: [Self.power: .bool(true)], emittedAt: .seconds(31), now: .seconds(31))
        #expect(core.desired[Self.power] == .bool(true))
    }

    @Test("a command not confirmed within reapply_within is dropped from desired state and never re-applied")
    func unconfirmedDesiredExpires() {
        let clock = ManualClock()
        var now: Duration { clock.now.offset }
        var core = DeviceLinkCore(
            device: TuyaDevice(
                id: Self.id, name: "lamp", profileID: Fixtures.whiteBulb.id, category: .light, transport: .mqtt),
            profile: Fixtures.whiteBulb, confirmationTimeout: .seconds(5), desired: [:],
            confirmed: [Self.power: .bool(false)], reapplyWithin: .seconds(120))
        _ = core.resume(now: now)
        // The device is unreachable: the command goes out, is not confirmed, and fails.
        let (ticket, _) = core.send([Self.power: .bool(true)], now: now)
        clock.advance(by: .seconds(5))
        #expect(Self.completions(core.tick(now: now)).map(\.0) == [ticket])
        #expect(core.desired[Self.power] == .bool(true))
        #expect(core.nextWake == .seconds(120))
        clock.advance(by: .seconds(115))
        let expired = core.tick(now: now)
        #expect(core.desired[Self.power] == nil)
        #expect(expired.contains { if case .desiredChanged(let d) = $0 { d.isEmpty } else { false } })
        #expect(Self.announcements(expired) == [.desiredExpired(Self.id, [Self.power])])
        // Hours later the device returns: nothing is written to it.
        clock.advance(by: .seconds(3 * 3600))
        _ = core.setAvailability(.online, hint: nil)
        let back = core.receive(report: [Self.power: .bool(false)], now: now)
        #expect(Self.transmitted(back).isEmpty)
        #expect(core.pendingState == core.confirmedState)
    }

    @Test("a device that returns within reapply_within still gets the command, and confirming it ends the bound")
    func unconfirmedDesiredReappliedWithinBound() {
        var core = DeviceLinkCore(
            device: TuyaDevice(
                id: Self.id, name: "lamp", profileID: Fixtures.whiteBulb.id, category: .light, transport: .mqtt),
            profile: Fixtures.whiteBulb, confirmationTimeout: .seconds(5), desired: [:],
            confirmed: [Self.power: .bool(false)], reapplyWithin: .seconds(120))
        _ = core.resume(now: .zero)
        _ = core.send([Self.power: .bool(true)], now: .zero)
        _ = core.tick(now: .seconds(5))
        _ = core.setAvailability(.online, hint: nil)
        let back = core.receive(report: [Self.power: .bool(false)], now: .seconds(60))
        #expect(Self.transmitted(back) == [[Self.power: .bool(true)]])
        _ = core.receive(report: [Self.power: .bool(true)], now: .seconds(61))
        #expect(core.unconfirmedSince.isEmpty)
        #expect(Self.announcements(core.tick(now: .seconds(600))).isEmpty)
        #expect(core.desired[Self.power] == .bool(true))
    }
}
