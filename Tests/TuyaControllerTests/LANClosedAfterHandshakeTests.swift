import Foundation
import LANLink
import Testing
import Timing
import TuyaCore
import TuyaWire
import YoullTestSupport

@testable import TuyaController

/// A 3.4/3.5 peer that completes the session-key handshake correctly (its answer verifies
/// under the local key) and then closes the connection, beside one that closes before
/// answering at all. Real parts: the link's TCP connections (`TCPConnector`) to a raw
/// listener on TCP 6668 of a loopback address of its own, whose handshake answer is made by
/// the device side of the protocol (`LANDeviceSession`). The link's timers run on a manual
/// clock, so its backoff is seen, not waited for.
@Suite(
    "A LAN device that closes the connection right after the session-key handshake", .serialized,
    .timeLimit(.minutes(2)))
struct LANClosedAfterHandshakeTests {
    static let devId = "bf0lanlamp000000000001"
    static let localKey = "0123456789abcdef"

    struct Rig {
        let clock = ManualClock()
        let announcements: LANRoguePeerTests.Announcements
        let log = CapturedLog()
        let link: LANDeviceLink

        init(version: LANProtocolVersion, address: String) throws {
            var profile = Fixtures.whiteBulb
            profile.transports = [.lan]
            let hub = EventHub()
            announcements = LANRoguePeerTests.Announcements(hub.subscribe())
            // The backoff's schedule exactly, without the jitter real links draw.
            var configuration = LANDeviceLink.Configuration()
            configuration.policy.backoff.jitter = 0
            link = LANDeviceLink(
                device: TuyaDevice(
                    id: try #require(DeviceID(LANClosedAfterHandshakeTests.devId)), name: "lamp",
                    profileID: profile.id, category: .light, transport: .lan),
                key: try AESKey(localKey: LANClosedAfterHandshakeTests.localKey),
                endpoint: try LANEndpoint(ip: address, version: version.rawValue, sourceID: 77), version: version,
                profile: profile, connector: TCPConnector(), configuration: configuration, clock: OffsetClock(clock),
                unixTime: { Int64(Date().timeIntervalSince1970) }, hub: hub, logger: log.logger)
        }

        /// Starts the link, runs `body`, and stops the link and `rogue` however it ended.
        func running(against rogue: RogueLANPeer, _ body: () async throws -> Void) async throws {
            await link.start()
            var failure: (any Error)?
            do { try await body() } catch { failure = error }
            rogue.stop()
            await link.stop()
            if let failure { throw failure }
        }
    }

    /// The device's correct answer to the gateway's START (`first`), made by the device side
    /// of the protocol under the same local key.
    static func handshakeAnswer(to first: [UInt8], version: LANProtocolVersion, key: AESKey) -> [UInt8] {
        var device = LANDeviceSession(version: version, localKey: key)
        return device.receive(first).flatMap { event -> [UInt8] in
            if case .send(let bytes) = event { bytes } else { [] }
        }
    }

    @Test(
        "after a verified handshake the close is offline with that hint, not busy, and the reconnect waits for the backoff",
        arguments: [LANProtocolVersion.v3_4, .v3_5])
    func closedAfterHandshake(version: LANProtocolVersion) async throws {
        let address = LANTestAddress.unique()
        let key = try AESKey(localKey: Self.localKey)
        let rogue = try RogueLANPeer(ip: address) { first in
            let answer = Self.handshakeAnswer(to: first, version: version, key: key)
            return (answer, true)
        }
        let rig = try Rig(version: version, address: address)
        try await rig.running(against: rogue) {
            try await rogue.expect(.accepted(1))
            let status = try await rig.announcements.first("offline") { $0.availability == .offline }
            #expect(status.hint == LANLinkPolicy.closedAfterHandshakeHint, "\(version): \(status)")
            #expect(status.hint == "the device closed the connection right after the session-key handshake")
            // The backoff (1 s) on the link's clock, not at once. Waiting for that timer, not for
            // any: a handshake timeout armed meanwhile would let the clock move before the
            // backoff is armed, and the reconnect would then never come.
            await rig.clock.waitForSleeper(dueAt: rig.clock.now.advanced(by: .seconds(1)))
            #expect(rogue.accepted == 1, "\(version): no reconnect before the backoff")
            rig.clock.advance(by: .seconds(1))
            try await rogue.expect(.accepted(2))
            // The second attempt ends the same way; the next waits longer (2 s from its close).
            await rig.clock.waitForSleeper(dueAt: rig.clock.now.advanced(by: .seconds(2)))
            rig.clock.advance(by: .seconds(1))
            #expect(rogue.accepted == 2, "\(version): no reconnect after 1 s of the longer backoff")
            rig.clock.advance(by: .seconds(1))
            try await rogue.expect(.accepted(3))
            let seen = rig.announcements.all
            #expect(!seen.contains { $0.availability == .busy }, "\(version): \(seen)")
            #expect(!seen.contains { $0.availability == .authFailed }, "\(version): \(seen)")
            #expect(seen.allSatisfy { $0.availability == .offline }, "\(version): \(seen)")
            // A verified handshake and a clean close: no bad frame to log, and never the key.
            #expect(rig.log.lines.filter { $0.level == .warning }.isEmpty, "\(rig.log.lines.map(\.message))")
            #expect(!rig.log.lines.contains { $0.message.contains(Self.localKey) })
        }
    }

    @Test("pairing a device that closes the connection right after the handshake is not busy, and says why")
    func pairingOutcome() {
        let outcome = LANPairing.outcome(of: .failed(.closedAfterHandshake))
        #expect(outcome == .notFound(reason: LANLinkPolicy.closedAfterHandshakeHint))
        #expect(LANPairing.outcome(of: .failed(.closedByDevice)) == .busy)
        #expect(LANPairing.outcome(of: .failed(.refused)) == .busy)
    }

    @Test(
        "a device that takes the connection and closes it before answering the handshake is still busy",
        arguments: [LANProtocolVersion.v3_4, .v3_5])
    func closedBeforeAnsweringIsBusy(version: LANProtocolVersion) async throws {
        let address = LANTestAddress.unique()
        let rogue = try RogueLANPeer(ip: address) { _ in ([], true) }
        let rig = try Rig(version: version, address: address)
        try await rig.running(against: rogue) {
            try await rogue.expect(.accepted(1))
            let status = try await rig.announcements.first("busy") { $0.availability != .unknown }
            #expect(status.availability == .busy, "\(version): \(status)")
            #expect(status.hint == LANLinkPolicy.busyHint)
        }
    }
}
