import LANLink
import Synchronization
import Testing
import Timing
import TuyaCore
import TuyaWire
import YoullTestSupport

@testable import TuyaController

/// A broadcast is not authenticated: anyone on the LAN can claim a paired device's id from
/// their own address. The link follows such an address only until the device there proves
/// the local key; a host that cannot leaves the device offline at worst, never online, saved
/// or counted as a wrong key.
@Suite("A LAN address heard in a broadcast", .timeLimit(.minutes(1)))
struct LANRogueAddressTests {
    static let realIP = "192.0.2.10"
    static let rogueIP = "192.0.2.66"
    static let movedIP = "192.0.2.11"

    /// The addresses the link saved, in order.
    final class Saved: Sendable {
        private let ips = Mutex<[String]>([])
        func append(_ ip: String) { ips.withLock { $0.append(ip) } }
        var all: [String] { ips.withLock { $0 } }
    }

    /// Connections to each address go to the device there; addresses in `down` refuse.
    final class Routing: LANConnector {
        let devices: [String: InMemoryLANDevice]
        private let downHosts = Mutex<Set<String>>([])

        init(devices: [String: InMemoryLANDevice]) { self.devices = devices }

        func setDown(_ hosts: Set<String>) { downHosts.withLock { $0 = hosts } }

        func connect(host: String, port: Int, timeout: Duration) async throws(LANConnectError) -> any LANByteStream {
            guard let device = devices[host], !downHosts.withLock({ $0.contains(host) }) else {
                throw .refused(host: host)
            }
            return try await device.connect(host: host, port: port, timeout: timeout)
        }
    }

    final class Rig: Sendable {
        let clock = ManualClock()
        let events: Mailbox<ControllerEvent>
        let real: InMemoryLANDevice
        let rogue: InMemoryLANDevice
        let link: LANDeviceLink
        let saved = Saved()
        let routing: Routing

        init() throws {
            let dps: [String: JSONValue] = ["1": .bool(false), "2": .integer(100)]
            real = try InMemoryLANDevice(
                devId: LANDeviceLinkTests.devId, key: LANDeviceLinkTests.key, version: .v3_3, dps: dps)
            rogue = try InMemoryLANDevice(
                devId: LANDeviceLinkTests.devId, key: "ffffffffffffffff", version: .v3_3, dps: dps)
            rogue.update { $0.answersEmpty = true }
            var profile = Fixtures.whiteBulb
            profile.transports = [.lan]
            profile.frameGapMilliseconds = 0
            let hub = EventHub()
            events = hub.subscribe()
            let saved = saved
            routing = Routing(devices: [
                LANRogueAddressTests.realIP: real, LANRogueAddressTests.movedIP: real,
                LANRogueAddressTests.rogueIP: rogue,
            ])
            link = LANDeviceLink(
                device: TuyaDevice(
                    id: DeviceID(LANDeviceLinkTests.devId)!, name: "lamp", profileID: profile.id, category: .light,
                    transport: .lan),
                key: try AESKey(localKey: LANDeviceLinkTests.key),
                endpoint: try LANEndpoint(ip: LANRogueAddressTests.realIP, version: "3.3", sourceID: 77),
                version: .v3_3, profile: profile,
                connector: routing, clock: OffsetClock(clock), unixTime: { 1_790_000_000 }, hub: hub,
                onAddressProven: { endpoint in saved.append(endpoint.ip) })
        }

        /// Moves the clock a second at a time, each time once the link's timer is armed, until
        /// the link says the device is not online.
        func advanceUntilOffline() async throws {
            for _ in 0..<120 where await link.status.availability == .online {
                await clock.waitForSleepers(1)
                clock.advance(by: .seconds(1))
                await Task.yield()
            }
            try await availability("offline") { $0.availability != .online }
        }

        @discardableResult
        func availability(_ what: String, _ predicate: @escaping @Sendable (ConnectionStatus) -> Bool) async throws
            -> ConnectionStatus
        {
            let events = events
            return try await withDeadline(30, what) {
                for await event in events {
                    if case .availabilityChanged(_, let status) = event, predicate(status) { return status }
                }
                throw DeadlineExceeded(what: what)
            }
        }
    }

    @Test("a host answering every frame empty is never online, never saved, and the link goes back to the device")
    func rogueAnsweringEmpty() async throws {
        let rig = try Rig()
        await rig.link.start()
        try await rig.availability("online at the real address") { $0.availability == .online }
        // The device is switched off at the wall: silent, then refusing; the link loses it.
        rig.real.update { $0.silent = true }
        rig.routing.setDown([Self.realIP])
        try await rig.advanceUntilOffline()
        rig.real.update { $0.silent = false }

        // A rogue broadcasts the device's id from its own address.
        #expect(await rig.link.addressChanged(to: Self.rogueIP) == .moved)
        let rogue = rig.rogue
        try await withDeadline(30, "the link to connect to the rogue") {
            while rogue.statistics.connections == 0 { await Task.yield() }
        }
        #expect(await rig.link.endpoint.ip == Self.rogueIP)
        #expect(await rig.link.stored()?.lan?.ip == Self.realIP, "what is saved or restored stays the proven address")
        // It answers empty: no proof, so not online; the answer timeout gives it up.
        var wakes = 0
        while await rig.link.endpoint.ip != Self.realIP, wakes < 20 {
            #expect(await rig.link.status.availability != .online, "online on the rogue's empty frames")
            await rig.clock.waitForSleepers(1)
            if let next = rig.clock.armed.first { rig.clock.advance(by: rig.clock.now.duration(to: next)) }
            wakes += 1
            await Task.yield()
        }
        #expect(await rig.link.endpoint.ip == Self.realIP, "back to the address the device proved")
        #expect(await rig.link.status.availability != .online)
        #expect(rig.saved.all.isEmpty, "nothing saved")
        // Offered again at once (the next broadcast, a re-probe): not taken for a minute.
        #expect(await rig.link.addressChanged(to: Self.rogueIP) == .unchanged)
        #expect(rogue.statistics.connections == 1)

        // The device comes back at its own address: online there.
        rig.routing.setDown([])
        await rig.clock.waitForSleepers(1)
        if let next = rig.clock.armed.first { rig.clock.advance(by: rig.clock.now.duration(to: next)) }
        try await rig.availability("online at the real address again") { $0.availability == .online }
        await rig.link.stop()
    }

    @Test("a device that really moved proves the key at its new address, which is saved")
    func realMove() async throws {
        let rig = try Rig()
        await rig.link.start()
        try await rig.availability("online") { $0.availability == .online }
        // A new lease: the old address answers no more, the device is at the new one.
        rig.real.update { $0.silent = true }
        rig.routing.setDown([Self.realIP])
        try await rig.advanceUntilOffline()
        rig.real.update { $0.silent = false }
        #expect(await rig.link.addressChanged(to: Self.movedIP) == .moved)
        try await rig.availability("online at the new address") { $0.availability == .online }
        #expect(rig.saved.all == [Self.movedIP])
        await rig.link.stop()
    }
}
