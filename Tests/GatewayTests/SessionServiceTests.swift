import Foundation
import Gateway
import SessionEngine
import Storage
import Synchronization
import Testing
import TuyaCore
import YoullTestSupport
import Timing

/// The session service's decisions with a fake controller (every device online, every
/// command recorded) and a manual clock, over a real SQLite store in a temporary directory.
@Suite("the session service: start rules and recovery")
struct SessionServiceTests {
    static let lamp = TuyaDevice(
        id: DeviceID("bf0000000000000000lamp")!, name: "lamp", profileID: "rgbcct-bulb-v2", category: .light,
        transport: .mqtt, productID: "keyjup78v54myhan")
    static let aroma = TuyaDevice(
        id: DeviceID("bf000000000000000aroma")!, name: "aroma", profileID: "aroma-diffuser-modern", category: .diffuser,
        transport: .mqtt, productID: "aroma")
    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    struct Rig {
        let directory: URL
        let database: GatewayDatabase
        let store: SQLiteSessionStore
        let controller: FakeController
        let service: SessionService
        let logged = LoggedLines()
        let clock = ManualClock()
        let announcements: AsyncStream<SessionAnnouncement>

        /// - now: the wall clock (fixed at `SessionServiceTests.now` unless given).
        init(
            now: @escaping @Sendable () -> Date = { SessionServiceTests.now },
            settings: SessionService.Settings = SessionService.Settings(),
            onActiveChange: @escaping @Sendable (Bool) -> Void = { _ in }
        ) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "youll-service-\(UUID().uuidString)")
            database = try GatewayDatabase.open(directory: directory)
            store = SQLiteSessionStore(database: database)
            controller = FakeController(devices: [SessionServiceTests.lamp, SessionServiceTests.aroma])
            let logged = logged
            let (announcements, announce) = AsyncStream.makeStream(of: SessionAnnouncement.self)
            self.announcements = announcements
            service = SessionService(
                tuyaController: controller, store: store, clock: clock, settings: settings,
                announce: { announce.yield($0) }, log: { entry in logged.lines.withLock { $0.append(entry.message) } },
                now: now, onActiveChange: onActiveChange)
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    static func record(state: SessionState, startedAgo: TimeInterval, preset: String = "calm") -> SessionRecord {
        let stages = [SessionStage(name: "sit", length: .seconds(600), bellInterval: .seconds(300))]
        return SessionRecord(
            id: SessionID("recovered-1")!, presetName: preset,
            configuration: SessionConfiguration(length: .stages(stages)),
            session: ResolvedSession(warmUp: .zero, stages: stages, isOpenEnded: false), devices: [lamp.id, aroma.id],
            state: state, startedAt: now.addingTimeInterval(-startedAgo), elapsed: .seconds(120),
            captured: [lamp.id: .light(LightState(power: true, mode: "white", brightness: 12, colorTemperature: 3000))])
    }

    @Test("a session found running after its planned end is recorded as interrupted and its end state is applied")
    func interruptedAfterEnd() async throws {
        let rig = try Rig()
        defer { rig.remove() }
        try await rig.store.save(Self.record(state: .running, startedAgo: 7200))
        await rig.service.recover()
        #expect(await !rig.service.isActive)
        let stored = try #require(try await rig.store.session(SessionID("recovered-1")!))
        #expect(stored.state == .interrupted)
        #expect(stored.endedAt == Self.now)
        // calm: the lamp ends at the sunrise's target, the diffuser off.
        let sent = await rig.controller.waitForSends(2)
        #expect(sent[Self.lamp.id] == .light(LightCommand(brightness: 80, colorTemperature: 4000)))
        #expect(
            sent[Self.aroma.id].map {
                if case .diffuser(let c) = $0 { c.power == false || c.mist == false } else { false }
            } == true)
    }

    @Test(
        "a session found during its end effect, its meditation over, is recorded as completed with the meditation's length"
    )
    func overDuringEndEffect() async throws {
        let rig = try Rig()
        defer { rig.remove() }
        // 600 s of meditation, over when the daemon stopped; long past its end effect now.
        var record = Self.record(state: .running, startedAgo: 7200)
        record.elapsed = .seconds(605)
        try await rig.store.save(record)
        await rig.service.recover()
        let stored = try #require(try await rig.store.session(record.id))
        #expect(stored.state == .completed)
        #expect(stored.elapsed == .seconds(600))
        #expect(try await rig.store.completedSummaries().count == 1, "it counts for the totals and streaks")
        let sent = await rig.controller.waitForSends(2)
        #expect(sent[Self.lamp.id] == .light(LightCommand(brightness: 80, colorTemperature: 4000)))
    }

    @Test("a restore preset's interrupted session puts back the state captured at its start")
    func interruptedRestores() async throws {
        let rig = try Rig()
        defer { rig.remove() }
        try await rig.store.save(Self.record(state: .running, startedAgo: 7200, preset: "focus"))
        await rig.service.recover()
        let sent = await rig.controller.waitForSends(1)
        #expect(sent[Self.lamp.id] == .light(LightCommand(power: true, brightness: 12, colorTemperature: 3000)))
    }

    @Test("a session still within its planned end resumes at its stored elapsed time; a paused one stays paused")
    func resumes() async throws {
        for state in [SessionState.running, .paused] {
            let rig = try Rig()
            defer { rig.remove() }
            try await rig.store.save(Self.record(state: state, startedAgo: 130))
            await rig.service.recover()
            #expect(await rig.service.isActive)
            let status = try #require(await rig.service.status())
            #expect(status.state == state)
            #expect(status.elapsed == .seconds(120))
            #expect(status.remaining == .seconds(480))
            _ = try await rig.service.stop(immediately: true)
        }
    }

    @Test("a session paused across a restart is stopped an hour after the start, its end state applied")
    func pausedAcrossRestartEnds() async throws {
        let rig = try Rig()
        defer { rig.remove() }
        try await rig.store.save(Self.record(state: .paused, startedAgo: 3 * 86400))
        await rig.service.recover()
        #expect(await rig.service.status()?.state == .paused)
        await rig.clock.waitForSleeper(dueAt: rig.clock.now.advanced(by: .seconds(3600)))
        rig.clock.advance(by: .seconds(3600))
        let announcements = rig.announcements
        try await withDeadline(60, "the session to end") {
            for await announcement in announcements {
                if case .ended(_, _, .stopped, .seconds(120)) = announcement { return }
            }
        }
        let sent = await rig.controller.waitForSends(2)
        #expect(sent[Self.lamp.id] == .light(LightCommand(brightness: 80, colorTemperature: 4000)))
        #expect(await !rig.service.isActive)
        let stored = try #require(try await rig.store.session(SessionID("recovered-1")!))
        #expect(stored.state == .stopped && stored.elapsed == .seconds(120))
        #expect(rig.logged.lines.withLock { $0 }.contains { $0.contains("paused for 3600 s (timer.max_pause)") })
    }

    @Test("a stored session whose preset no longer exists is recorded as interrupted, not resumed")
    func unknownPreset() async throws {
        let rig = try Rig()
        defer { rig.remove() }
        try await rig.store.save(Self.record(state: .running, startedAgo: 10, preset: "gone"))
        await rig.service.recover()
        #expect(await !rig.service.isActive)
        #expect(try await rig.store.session(SessionID("recovered-1")!)?.state == .interrupted)
    }

    @Test("start refuses a second session, an unknown preset and an unknown device, each with its reason")
    func startRules() async throws {
        let rig = try Rig()
        defer { rig.remove() }
        let configuration = SessionConfiguration.minutes(10)
        await #expect(throws: SessionServiceError.unknownPreset("zen", known: ["calm", "focus", "sleep"])) {
            _ = try await rig.service.start(SessionStartRequest(preset: "zen", configuration: configuration))
        }
        await #expect(throws: SessionServiceError.unknownDevice(field: "devices[1]", reference: "hall")) {
            _ = try await rig.service.start(
                SessionStartRequest(configuration: configuration, devices: ["lamp", "hall"]))
        }
        let first = try await rig.service.start(SessionStartRequest(configuration: configuration, devices: ["lamp"]))
        await #expect(throws: SessionServiceError.alreadyActive(first.id)) {
            _ = try await rig.service.start(SessionStartRequest(configuration: configuration))
        }
        #expect(await rig.service.isActive)
        #expect(try await rig.store.session(first.id)?.devices == [Self.lamp.id])
    }

    @Test(
        "until a time a minute past is refused as in the past, not a 24-hour session; said as tomorrow's it starts"
    )
    func untilJustPassed() async throws {
        let rig = try Rig()
        defer { rig.remove() }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = await rig.service.settings.timeZone
        let parts = calendar.dateComponents([.hour, .minute], from: Self.now.addingTimeInterval(-60))
        let time = try #require(TimeOfDay(hour: parts.hour ?? 0, minute: parts.minute ?? 0))
        let until = SessionConfiguration(length: .until(time, bellInterval: nil))
        do {
            _ = try await rig.service.start(SessionStartRequest(configuration: until, devices: ["lamp"]))
            Issue.record("expected a refusal")
        } catch {
            #expect("\(error)".contains("until: \(time) is in the past"), "\(error)")
            #expect("\(error)".contains("tomorrow \(time)"), "\(error)")
        }
        #expect(await !rig.service.isActive)
        let started = try await rig.service.start(
            SessionStartRequest(configuration: until, devices: ["lamp"], untilTomorrow: true))
        let remaining = try #require(started.remaining)
        #expect(remaining > .seconds(23 * 3600) && remaining <= .seconds(24 * 3600))
    }

    @Test("a session started before NTP set the clock (a Pi booting at 1970) is stored as starting at its real time")
    func startAcrossAClockStep() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "youll-step-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = SQLiteSessionStore(database: try GatewayDatabase.open(directory: directory))
        let clock = ManualClock()
        let wall = Mutex(Date(timeIntervalSince1970: 10))
        let (announcements, announce) = AsyncStream.makeStream(of: SessionAnnouncement.self)
        let service = SessionService(
            tuyaController: FakeController(devices: [Self.lamp]), store: store, clock: clock,
            announce: { announce.yield($0) }, now: { wall.withLock { $0 } })
        let started = try await service.start(
            SessionStartRequest(configuration: .minutes(10), devices: ["lamp"]))
        // Five minutes in, NTP answers.
        clock.advance(by: .seconds(300))
        wall.withLock { $0 = Self.now }
        _ = try await service.stop(immediately: true)
        _ = try await withDeadline(10, "the session's end") {
            for await announcement in announcements {
                if case .ended = announcement { return true }
            }
            return false
        }
        let stored = try #require(try await store.session(started.id))
        #expect(abs(stored.startedAt.timeIntervalSince(Self.now.addingTimeInterval(-300))) < 1, "\(stored.startedAt)")
        #expect(stored.state == .stopped)
        #expect(stored.endedAt == Self.now)
    }

    @Test("a session suspended at shutdown is logged with its time rounded for a person (120 s, not 120.0 s)")
    func suspendedLogLine() async throws {
        let rig = try Rig()
        defer { rig.remove() }
        try await rig.store.save(Self.record(state: .running, startedAgo: 130))
        await rig.service.recover()
        await rig.service.suspend()
        #expect(
            rig.logged.lines.withLock { $0 }.contains(
                "session recovered-1 suspended at 120 s; it resumes at the next start"),
            "\(rig.logged.lines.withLock { $0 })")
    }
}

/// Every device online; every command recorded (the latest per device) and confirmed.
actor FakeController: TuyaControllerProtocol {
    private let registry: [TuyaDevice]
    private var sent: [DeviceID: DeviceCommand] = [:]
    private var count = 0
    private var waiters: [(Int, CheckedContinuation<[DeviceID: DeviceCommand], Never>)] = []

    init(devices: [TuyaDevice]) {
        registry = devices
    }

    /// Returns the latest command per device once `count` commands have arrived.
    func waitForSends(_ expected: Int) async -> [DeviceID: DeviceCommand] {
        if count >= expected { return sent }
        return await withCheckedContinuation { waiters.append((expected, $0)) }
    }

    func devices() -> [TuyaDevice] { registry }
    func device(_ id: DeviceID) -> TuyaDevice? { registry.first { $0.id == id } }
    func status(of id: DeviceID) -> ConnectionStatus? { ConnectionStatus(availability: .online) }
    func confirmedState(of id: DeviceID) -> DeviceState? { nil }
    func pendingState(of id: DeviceID) -> DeviceState? { nil }

    func send(_ command: DeviceCommand, to id: DeviceID) -> DeviceState {
        sent[id] = command
        count += 1
        let ready = waiters.filter { $0.0 <= count }
        waiters.removeAll { $0.0 <= count }
        for (_, continuation) in ready { continuation.resume(returning: sent) }
        return .light(LightState())
    }

    nonisolated func events() -> Mailbox<ControllerEvent> { .finished() }
}

/// What a session service logged, in order.
final class LoggedLines: Sendable {
    let lines = Mutex<[String]>([])
}
