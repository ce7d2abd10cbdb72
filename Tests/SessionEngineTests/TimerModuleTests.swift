import Foundation
import SessionEngine
import Synchronization
import Testing
import TuyaCore
import YoullTestSupport

/// The session service as the timer module: an in-memory store, the manual clock, and
/// the announcements read from a stream as they come.
@Suite("the timer module: sessions with and without devices, badges on a stream")
struct TimerModuleTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)
    static let lamp = TuyaDevice(
        id: DeviceID("bf0000000000000000lamp")!, name: "lamp", profileID: "rgbcct-bulb-v2", category: .light,
        transport: .mqtt)

    struct Rig {
        let clock: ManualClock
        let store = InMemorySessionStore()
        let service: SessionService
        let announcements: AsyncStream<SessionAnnouncement>
        /// Every `onActiveChange` (what holds maintenance alerts), in order.
        let activeChanges = ActiveChanges()

        init(
            controller: (any TuyaControllerProtocol)?, settings: SessionService.Settings = .init(),
            clock: ManualClock = ManualClock()
        ) {
            self.clock = clock
            let (stream, continuation) = AsyncStream.makeStream(of: SessionAnnouncement.self)
            announcements = stream
            let activeChanges = activeChanges
            service = SessionService(
                tuyaController: controller, store: store, clock: clock, settings: settings,
                announce: { continuation.yield($0) }, now: { TimerModuleTests.now },
                onActiveChange: { activeChanges.record($0) })
        }

        /// Moves the clock past every cue once the runner waits for its first: the whole
        /// session and its end effect play out.
        func playOut() async {
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(3600))
        }

        /// The announcements up to and including the first that `last` accepts.
        func announcements(through last: @escaping @Sendable (SessionAnnouncement) -> Bool) async throws
            -> [SessionAnnouncement]
        {
            let stream = announcements
            // Only a guard against a hang: a passing run never waits for it, and a full run on
            // 2 cores can leave this in-memory rig unscheduled for over 10 s.
            return try await withDeadline(60, "the announcements to end") {
                var seen: [SessionAnnouncement] = []
                for await announcement in stream {
                    seen.append(announcement)
                    if last(announcement) { return seen }
                }
                return seen
            }
        }
    }

    /// What `onActiveChange` was told, in order.
    final class ActiveChanges: Sendable {
        private let changes = Mutex<[Bool]>([])
        func record(_ active: Bool) { changes.withLock { $0.append(active) } }
        var all: [Bool] { changes.withLock { $0 } }
    }

    static func isIdle(_ announcement: SessionAnnouncement) -> Bool {
        announcement == .status(nil, names: [:])
    }

    @Test("without a Tuya controller a session runs on its clock with no devices, completes and earns the first badge")
    func withoutController() async throws {
        let rig = Rig(controller: nil)
        #expect(rig.service.tuyaController == nil)
        var badges = rig.service.badgeEvents().makeAsyncIterator()

        let started = try await rig.service.start(SessionStartRequest(configuration: .minutes(1)))
        #expect(started.devices.isEmpty)
        await rig.playOut()
        _ = try await rig.announcements(through: Self.isIdle)

        #expect(await badges.next() == .firstSession)
        #expect(await rig.service.status() == nil)
        let record = try #require(await rig.store.session(started.id))
        #expect(record.state == .completed)
        #expect(record.devices.isEmpty)
    }

    @Test("a completed session's badge is announced before its end, and the status goes idle last")
    func badgeBeforeEnd() async throws {
        let rig = Rig(controller: nil)
        let started = try await rig.service.start(SessionStartRequest(configuration: .minutes(1)))
        await rig.playOut()
        let list = try await rig.announcements(through: Self.isIdle)

        let badge = try #require(list.firstIndex(of: .badgeEarned(.firstSession)))
        let end = try #require(
            list.firstIndex { if case .ended(started.id, _, .completed, _) = $0 { true } else { false } })
        #expect(badge < end && end == list.count - 2)
        #expect(list.last.map(Self.isIdle) == true)
    }

    @Test("with the Tuya module's controller the session drives its devices, named as the controller names them")
    func withController() async throws {
        let clock = ManualClock()
        let controller = RecordingController(clock: clock, devices: [Self.lamp])
        let rig = Rig(controller: controller)
        _ = try await rig.service.start(SessionStartRequest(preset: "focus", configuration: .minutes(1)))
        let list = try await rig.announcements { if case .cue = $0 { true } else { false } }

        guard
            case .started(_, let devices, let names, let resumed, _)? = list.first(where: {
                if case .started = $0 { true } else { false }
            })
        else {
            Issue.record("no started announcement: \(list)")
            return
        }
        #expect(devices == [Self.lamp.id] && names == [Self.lamp.id: "lamp"] && !resumed)
        guard case .cue(let cue, _, _)? = list.last else { return }
        #expect(cue.deviceID == Self.lamp.id && cue.kind == .start)
        #expect(cue.outcome == .sent, "the lamp is online: its start scene went to the controller")
        _ = try await rig.service.stop(immediately: true)
    }

    @Test(
        "stopped during its sunrise, a session whose meditation had ended is completed, and its length is the meditation"
    )
    func stopDuringEndingCompletes() async throws {
        let clock = ManualClock()
        let controller = RecordingController(clock: clock, devices: [Self.lamp])
        let rig = Rig(controller: controller)
        let started = try await rig.service.start(SessionStartRequest(preset: "calm", configuration: .minutes(1)))
        await rig.clock.waitForSleepers(1)
        rig.clock.advance(by: .seconds(61))
        _ = try await rig.announcements { if case .cue(let cue, _, _) = $0 { cue.kind == .end } else { false } }
        #expect(await rig.service.status()?.phase == .ending)

        _ = try await rig.service.stop(immediately: true)
        _ = try await rig.announcements(through: Self.isIdle)
        let record = try #require(await rig.store.session(started.id))
        #expect(record.state == .completed)
        #expect(record.elapsed == .seconds(60))
    }

    @Test("stopped before its meditation ends, a timed session is stopped, with the length it ran")
    func stopBeforeEndIsStopped() async throws {
        let rig = Rig(controller: nil)
        let started = try await rig.service.start(SessionStartRequest(configuration: .minutes(10)))
        await rig.clock.waitForSleepers(1)
        rig.clock.advance(by: .seconds(30))
        _ = try await rig.service.stop(immediately: true)
        _ = try await rig.announcements(through: Self.isIdle)
        let record = try #require(await rig.store.session(started.id))
        #expect(record.state == .stopped)
        #expect(record.elapsed == .seconds(30))
    }

    @Test("an open-ended sit ended by hand is completed, also when its end effect is skipped")
    func openEndedStoppedIsCompleted() async throws {
        let rig = Rig(controller: nil)
        let open = SessionConfiguration(length: .openEnded(bellInterval: nil))
        let started = try await rig.service.start(SessionStartRequest(configuration: open))
        await rig.clock.waitForSleepers(1)
        rig.clock.advance(by: .seconds(40 * 60))
        _ = try await rig.service.stop(immediately: true)
        _ = try await rig.announcements(through: Self.isIdle)
        let record = try #require(await rig.store.session(started.id))
        #expect(record.state == .completed)
        #expect(record.elapsed == .seconds(40 * 60))
    }

    @Test("a checkpoint saves a running session's elapsed time between its cues, so a crash resumes near it")
    func checkpointSavesElapsed() async throws {
        let rig = Rig(controller: nil)
        let started = try await rig.service.start(SessionStartRequest(configuration: .minutes(10)))
        // The start and its stage-start cue are stored (elapsed zero) once announced.
        _ = try await rig.announcements {
            if case .cue(let cue, _, _) = $0 { cue.kind == .stageStart(stage: 0) } else { false }
        }
        await rig.clock.waitForSleepers(1)
        rig.clock.advance(by: .seconds(125))
        #expect(
            try #require(await rig.store.session(started.id)).elapsed < .seconds(125), "no cue fired since the start")
        await rig.service.checkpoint()
        #expect(try #require(await rig.store.session(started.id)).elapsed == .seconds(125))
        _ = try await rig.service.stop(immediately: true)
    }
}
