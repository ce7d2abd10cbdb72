import Synchronization
import Testing
import Timing
import TuyaCore
import TuyaWire
import YoullTestSupport

@testable import TuyaController

/// `LANDeviceLink` against an in-memory device that speaks the real LAN protocol (handshake,
/// encryption, frames), on a manual clock: connection, confirmation, availability and
/// reconnects without a socket. The TCP path is covered against the simulator elsewhere.
@Suite("LANDeviceLink")
struct LANDeviceLinkTests {
    static let devId = "bf0lanlamp000000000001"
    static let key = "0123456789abcdef"

    struct Rig {
        /// How long a wait for the link may take in real time. The link runs on NIO's shared
        /// event loops, where every LAN test of the process queues its work (the simulated
        /// fleets, the 500-device test among them): in the busy first minute of a full run on
        /// a loaded machine, 10 s ran out. Each wait ends as soon as its event comes.
        static let realTimeLimit: Double = 30

        let clock = ManualClock()
        let hub = EventHub()
        let events: Mailbox<ControllerEvent>
        let device: InMemoryLANDevice
        let link: LANDeviceLink

        init(version: LANProtocolVersion, gatewayKey: String = LANDeviceLinkTests.key) throws {
            device = try InMemoryLANDevice(
                devId: LANDeviceLinkTests.devId, key: LANDeviceLinkTests.key, version: version,
                dps: ["1": .bool(false), "2": .integer(100), "3": .integer(0)])
            var profile = Fixtures.whiteBulb
            profile.transports = [.lan]
            profile.frameGapMilliseconds = 0
            let id = try #require(DeviceID(LANDeviceLinkTests.devId))
            let endpoint = try LANEndpoint(ip: "192.0.2.10", version: version.rawValue, sourceID: 77)
            events = hub.subscribe()
            link = LANDeviceLink(
                device: TuyaDevice(id: id, name: "lamp", profileID: profile.id, category: .light, transport: .lan),
                key: try AESKey(localKey: gatewayKey), endpoint: endpoint, version: version, profile: profile,
                connector: device, clock: OffsetClock(clock), unixTime: { 1_700_000_000 }, hub: hub)
        }

        /// Waits for an availability matching `predicate`, for up to `realTimeLimit`.
        @discardableResult
        func waitFor(_ what: String, _ predicate: @escaping @Sendable (ConnectionStatus) -> Bool) async throws
            -> ConnectionStatus
        {
            let events = events
            return try await withDeadline(Self.realTimeLimit, what) {
                for await event in events {
                    if case .availabilityChanged(_, let status) = event, predicate(status) { return status }
                }
                throw DeadlineExceeded(what: "\(what) (event stream ended)")
            }
        }

        /// Moves the clock a second at a time (each time once the link's timer is armed) until
        /// an availability matching `predicate` is announced, or `limit` seconds passed.
        func advanceUntil(
            _ what: String, limit: Int = 120, _ predicate: @escaping @Sendable (ConnectionStatus) -> Bool
        ) async throws {
            let seen = Mutex(false)
            let waiter = Task {
                defer { seen.withLock { $0 = true } }
                return try await waitFor(what, predicate)
            }
            for _ in 0..<limit where !seen.withLock({ $0 }) {
                await advance(.seconds(1))
            }
            _ = try await waiter.value
        }

        /// Advances the clock to the link's next wake, once its timer is armed.
        func advance(_ duration: Duration) async {
            await clock.waitForSleepers(1)
            clock.advance(by: duration)
        }

        /// Advances the clock past the first reconnect's backoff (1 s at most), once that
        /// timer is armed: not merely any timer (a command's confirmation timeout may be
        /// armed first, and moving the clock then leaves the backoff a second away for ever).
        func advancePastFirstBackoff() async {
            await clock.waitForSleeper(dueBy: clock.now.advanced(by: .seconds(1)))
            clock.advance(by: .seconds(1))
        }
    }

    @Test(
        "each version connects, agrees its session, reads the status, and a command is confirmed by the device's push",
        arguments: [LANProtocolVersion.v3_3, .v3_4, .v3_5])
    func connectsReadsAndConfirms(version: LANProtocolVersion) async throws {
        let rig = try Rig(version: version)
        await rig.link.start()
        try await rig.waitFor("online") { $0.availability == .online }
        let state = try await rig.link.send([Fixtures.dp(1): .bool(true), Fixtures.dp(2): .value(200)])
        guard case .light(let light) = state else { throw DeadlineExceeded(what: "a light state") }
        #expect(light.power == true)
        #expect(rig.device.dps["1"] == .bool(true))
        #expect(rig.device.dps["2"] == .integer(200))
        // One frame carried both DPs.
        #expect(rig.device.statistics.controls.count == 1)
        let control: LANCommand = version.negotiatesSessionKey ? .controlNew : .control
        #expect(rig.device.statistics.requests.contains(control))
        #expect(rig.device.statistics.connections == 1)
        await rig.link.stop()
    }

    @Test("a device that refuses the connection is busy, with the hint to close the other app, and recovers")
    func refusedIsBusy() async throws {
        let rig = try Rig(version: .v3_3)
        rig.device.update { $0.refuse = true }
        await rig.link.start()
        let busy = try await rig.waitFor("busy") { $0.availability == .busy }
        #expect(busy.hint?.contains("Tuya/Smart Life app") == true)
        rig.device.update { $0.refuse = false }
        await rig.advancePastFirstBackoff()
        try await rig.waitFor("online again") { $0.availability == .online }
        await rig.link.stop()
    }

    @Test(
        "a wrong key on 3.4 is counted, and auth_failed only after repeated mismatches",
        arguments: [LANProtocolVersion.v3_4, .v3_5])
    func wrongKey(version: LANProtocolVersion) async throws {
        let rig = try Rig(version: version, gatewayKey: "ZYXWVUTSRQPONMLK")
        await rig.link.start()
        // Attempts 2 and 3 wait out the backoff (1 s, then 2 s). The clock moves once the
        // backoff's timer is armed: the handshake's own timeout, armed before it, is later.
        for delay in [Duration.seconds(1), .seconds(2)] {
            await rig.clock.waitForSleeper(dueBy: rig.clock.now.advanced(by: delay))
            rig.clock.advance(by: delay)
        }
        let failed = try await rig.waitFor("auth_failed") { $0.availability == .authFailed }
        #expect(failed.hint?.contains("local key mismatch") == true)
        #expect(rig.device.statistics.connections == 3)
        await rig.link.stop()
    }

    @Test("a device that stops answering is offline after the answer timeout, and the link reconnects")
    func silentDeviceGoesOffline() async throws {
        let rig = try Rig(version: .v3_3)
        await rig.link.start()
        try await rig.waitFor("online") { $0.availability == .online }
        rig.device.update { $0.silent = true }
        // Idle 10 s: a heartbeat; 5 s without its answer: offline, reconnect.
        await rig.advance(.seconds(10))
        await rig.advance(.seconds(5))
        let offline = try await rig.waitFor("offline") { $0.availability == .offline }
        #expect(offline.hint?.contains("no answer") == true)
        rig.device.update { $0.silent = false }
        try await rig.advanceUntil("back online") { $0.availability == .online }
        #expect(rig.device.statistics.connections >= 2)
        await rig.link.stop()
    }

    @Test("a command sent while the device is unreachable goes out once the connection is up")
    func commandWaitsForTheConnection() async throws {
        let rig = try Rig(version: .v3_5)
        rig.device.update { $0.refuse = true }
        await rig.link.start()
        try await rig.waitFor("busy") { $0.availability == .busy }
        let link = rig.link
        let command = Task { try await link.send([Fixtures.dp(1): .bool(true)]) }
        rig.device.update { $0.refuse = false }
        await rig.advancePastFirstBackoff()
        _ = try await withDeadline(Rig.realTimeLimit, "the confirmation") { try await command.value }
        #expect(rig.device.dps["1"] == .bool(true))
        await rig.link.stop()
    }

    @Test("a device heard at a new address is reconnected there at once")
    func followsANewAddress() async throws {
        let rig = try Rig(version: .v3_3)
        rig.device.update { $0.refuse = true }
        await rig.link.start()
        try await rig.waitFor("busy") { $0.availability == .busy }
        rig.device.update { $0.refuse = false }
        #expect(await rig.link.addressChanged(to: "192.0.2.99") == .moved)
        #expect(await rig.link.addressChanged(to: "192.0.2.99") == .unchanged)
        try await rig.waitFor("online at the new address") { $0.availability == .online }
        #expect(rig.device.statistics.hosts.last == "192.0.2.99")
        #expect(await rig.link.stored()?.lan?.ip == "192.0.2.99")
        await rig.link.stop()
    }

    /// Broadcasts are unauthenticated: anyone on the network can claim a paired device's id
    /// from its own address. While the link's session is up the device is demonstrably where
    /// the link reaches it; a real move shows when the connection fails (then the latest
    /// broadcast is followed, above, or read by the reprobe).
    @Test("a broadcast claiming another address while the session is up is held: it moves nothing")
    func ignoresAMoveWhileEstablished() async throws {
        let rig = try Rig(version: .v3_4)
        await rig.link.start()
        try await rig.waitFor("online") { $0.availability == .online }
        let before = await rig.link.stored()?.lan?.ip
        #expect(await rig.link.addressChanged(to: "192.0.2.66") == .heldWhileConnected)
        #expect(await rig.link.stored()?.lan?.ip == before)
        let link = rig.link
        _ = try await withDeadline(Rig.realTimeLimit, "a confirmed command") {
            try await link.send([Fixtures.dp(1): .bool(true)])
        }
        #expect(rig.device.statistics.connections == 1, "the session was never dropped for the claimed address")
        await rig.link.stop()
    }

    @Test("stopping fails a waiting command and opens no further connection")
    func stopFailsWaiters() async throws {
        let rig = try Rig(version: .v3_4)
        rig.device.update { $0.refuse = true }
        await rig.link.start()
        try await rig.waitFor("busy") { $0.availability == .busy }
        let link = rig.link
        let command = Task { try await link.send([Fixtures.dp(1): .bool(true)]) }
        await rig.clock.waitForSleepers(1)
        await rig.link.stop()
        await #expect(throws: ControllerError.stopped) { try await command.value }
        rig.clock.advance(by: .seconds(120))
        #expect(rig.device.statistics.connections == 0)
    }
}
