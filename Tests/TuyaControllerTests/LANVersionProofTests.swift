import LANLink
import Testing
import Timing
import TuyaCore
import TuyaWire
import YoullTestSupport

@testable import TuyaController

/// A protocol version heard in a broadcast (a re-probe after a firmware update) is not
/// authenticated either: the link made for it saves it only once the device proves the key
/// speaking it, and a device that does not is never taken for a wrong key.
@Suite("A LAN version heard in a broadcast", .timeLimit(.minutes(1)))
struct LANVersionProofTests {
    static let ip = "192.0.2.10"

    final class Rig: Sendable {
        let clock = ManualClock()
        let events: Mailbox<ControllerEvent>
        let device: InMemoryLANDevice
        let link: LANDeviceLink
        let saved = LANRogueAddressTests.Saved()
        let versions = LANRogueAddressTests.Saved()

        /// A link speaking `claimed`, not yet proven, to a device speaking `actual`.
        init(claimed: LANProtocolVersion, actual: LANProtocolVersion) throws {
            device = try InMemoryLANDevice(
                devId: LANDeviceLinkTests.devId, key: LANDeviceLinkTests.key, version: actual,
                dps: ["1": .bool(false), "2": .integer(100)])
            var profile = Fixtures.whiteBulb
            profile.transports = [.lan]
            let hub = EventHub()
            events = hub.subscribe()
            let (saved, versions) = (saved, versions)
            link = LANDeviceLink(
                device: TuyaDevice(
                    id: DeviceID(LANDeviceLinkTests.devId)!, name: "lamp", profileID: profile.id, category: .light,
                    transport: .lan),
                key: try AESKey(localKey: LANDeviceLinkTests.key),
                endpoint: try LANEndpoint(ip: LANVersionProofTests.ip, version: claimed.rawValue, sourceID: 77),
                version: claimed, profile: profile,
                connector: LANRogueAddressTests.Routing(devices: [LANVersionProofTests.ip: device]),
                clock: OffsetClock(clock), unixTime: { 1_790_000_000 }, hub: hub,
                onAddressProven: { endpoint in
                    saved.append(endpoint.ip)
                    versions.append(endpoint.version)
                }, versionUnproven: true)
        }
    }

    @Test("a device that speaks the version it broadcast proves the key with it, and the version is saved")
    func provenVersionSaved() async throws {
        let rig = try Rig(claimed: .v3_4, actual: .v3_4)
        await rig.link.start()
        let events = rig.events
        try await withDeadline(30, "online") {
            for await event in events {
                if case .availabilityChanged(_, let status) = event, status.availability == .online { return }
            }
        }
        #expect(rig.saved.all == [Self.ip], "saved at its own (stored) address, for the version")
        #expect(rig.versions.all == ["3.4"])
        await rig.link.stop()
    }

    @Test("a version whose handshake never proves the key is never saved, and its failures do not blame the key")
    func unprovenVersionNotSaved() async throws {
        // Whoever answers at the address speaks the claimed version, but not with the key.
        let rig = try Rig(claimed: .v3_5, actual: .v3_5)
        rig.device.update { $0.keyOverride = "ffffffffffffffff" }
        await rig.link.start()
        let (device, clock) = (rig.device, rig.clock)
        // Well past the link's key-mismatch limit (3): each wait (a backoff, a timeout) run out.
        try await withDeadline(30, "six connections") {
            while device.statistics.connections < 6 {
                await clock.waitForSleepers(1)
                if let next = clock.armed.first { clock.advance(by: clock.now.duration(to: next)) }
                await Task.yield()
            }
        }
        let status = await rig.link.status
        #expect(status.availability != .authFailed, "\(status)")
        #expect(status.availability != .online)
        #expect(rig.saved.all.isEmpty, "nothing saved")
        await rig.link.stop()
    }
}
