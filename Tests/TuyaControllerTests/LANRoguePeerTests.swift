import DeviceSimulator
import Foundation
import LANLink
import Synchronization
import Testing
import Timing
import TuyaCore
import TuyaWire
import YoullTestSupport

@testable import TuyaController

/// A rogue TCP peer sits where a paired LAN device should be and answers the gateway's link
/// with hostile bytes. Real parts: the link's TCP connections (`TCPConnector`) to a raw
/// listener on TCP 6668 of a loopback address of its own, then the simulated device at that
/// address. The link's timers run on a manual clock, so its backoff is seen, not waited for.
@Suite("Hostile frames from a rogue TCP peer where a LAN device should be", .serialized, .timeLimit(.minutes(3)))
struct LANRoguePeerTests {
    /// What the rogue answers the gateway's first frame with.
    enum Hostile: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case randomBytes = "random bytes"
        case badCRC = "a 55AA frame with a bad CRC"
        case hugeLength = "a frame announcing a huge length"
        case truncatedThenClose = "a truncated frame, then the connection closed"
        case undecryptable = "a frame with a good CRC whose payload does not decrypt"
        case garbageFlood = "a flood of garbage"
        case badGCMTag = "a 6699 frame with a bad GCM tag"

        var testDescription: String { rawValue }

        var version: LANProtocolVersion { self == .badGCMTag ? .v3_5 : .v3_3 }

        var thenClose: Bool { self == .truncatedThenClose }

        /// A piece of the hint the user sees; nil when one such frame is counted, not believed.
        var hint: String? {
            switch self {
            case .randomBytes, .garbageFlood: "bytes that are not a LAN frame"
            case .badCRC: "CRC-32 mismatch"
            case .hugeLength: "LAN frame size"
            case .truncatedThenClose: "the device closed the connection mid-frame (20 of "
            case .undecryptable, .badGCMTag: nil
            }
        }

        /// The fault the log line names; nil when no frame was bad.
        var fault: String? {
            switch self {
            case .randomBytes, .garbageFlood: "not a LAN frame"
            case .badCRC: "bad CRC"
            case .hugeLength: "bad length"
            case .truncatedThenClose: "truncated frame"
            case .undecryptable: "undecryptable"
            case .badGCMTag: "bad GCM tag"
            }
        }

        func bytes(key: AESKey) throws -> [UInt8] {
            var random = SeededGenerator(seed: 7)
            let codec = LANMessageCodec(version: version)
            let answer = LANMessage(
                command: .dpQuery, sequence: 1, retcode: 0, payload: Array(#"{"devId":"x","dps":{"20":true}}"#.utf8))
            switch self {
            case .randomBytes:
                return [0xFF] + (0..<63).map { _ in UInt8.random(in: 0...255, using: &random) }
            case .garbageFlood:
                return [UInt8](repeating: 0xA5, count: 1 << 20)
            case .badCRC:
                var frame = try codec.encode(answer, key: key)
                frame[frame.count - 5] ^= 0x01
                return frame
            case .hugeLength:
                return [0, 0, 0x55, 0xAA, 0, 0, 0, 1, 0, 0, 0, 0x0A, 0x7F, 0xFF, 0xFF, 0xF0]
                    + [UInt8](repeating: 0, count: 16)
            case .truncatedThenClose:
                return Array(try codec.encode(answer, key: key).prefix(20))
            case .undecryptable:
                return try codec.encode(answer, key: try AESKey(localKey: "ZYXWVUTSRQPONMLK"))
            case .badGCMTag:
                let response = LANMessage(
                    command: .sessionKeyResponse, sequence: 1, retcode: 0, payload: [UInt8](repeating: 0x6D, count: 48))
                var frame = try codec.encode(response, key: key, nonce: [UInt8](repeating: 3, count: 12))
                frame[frame.count - 5] ^= 0x01
                return frame
            }
        }
    }

    /// Every availability the link announced, and a way to wait for one.
    final class Announcements: Sendable {
        private struct Waiter {
            var predicate: @Sendable (ConnectionStatus) -> Bool
            var continuation: CheckedContinuation<ConnectionStatus?, Never>
        }

        private struct State {
            var statuses: [ConnectionStatus] = []
            var waiters: [Int: Waiter] = [:]
            var nextID = 0
        }

        private final class Box: Sendable {
            let state = Mutex(State())
        }

        private let box = Box()
        private let task: Task<Void, Never>

        init(_ events: Mailbox<ControllerEvent>) {
            let box = box
            task = Task {
                for await event in events {
                    guard case .availabilityChanged(_, let status) = event else { continue }
                    let due = box.state.withLock { state in
                        state.statuses.append(status)
                        let due = state.waiters.filter { $0.value.predicate(status) }
                        for id in due.keys { state.waiters[id] = nil }
                        return due.values.map(\.continuation)
                    }
                    for continuation in due { continuation.resume(returning: status) }
                }
            }
        }

        deinit { task.cancel() }

        var all: [ConnectionStatus] { box.state.withLock { $0.statuses } }

        /// The first announcement matching `predicate`, already made or the next one; throws
        /// after `seconds` (a bound that only turns a hang into a failure).
        @discardableResult
        func first(
            _ what: String, within seconds: Double = 20, _ predicate: @escaping @Sendable (ConnectionStatus) -> Bool
        ) async throws -> ConnectionStatus {
            let box = box
            let id = box.state.withLock { state in
                state.nextID += 1
                return state.nextID
            }
            let found = try await withDeadline(seconds, what) {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<ConnectionStatus?, Never>) in
                        let seen = box.state.withLock { state -> ConnectionStatus?? in
                            if let status = state.statuses.first(where: predicate) { return .some(status) }
                            if Task.isCancelled { return .some(nil) }
                            state.waiters[id] = Waiter(predicate: predicate, continuation: continuation)
                            return nil
                        }
                        if let seen { continuation.resume(returning: seen) }
                    }
                } onCancel: {
                    let waiter = box.state.withLock { $0.waiters.removeValue(forKey: id) }
                    waiter?.continuation.resume(returning: nil)
                }
            }
            guard let found else { throw DeadlineExceeded(what: what) }
            return found
        }
    }

    @Test(
        "the link survives each hostile answer, names it, backs off, and a good device at that address is driven",
        arguments: Hostile.allCases)
    func hostilePeer(_ hostile: Hostile) async throws {
        let address = LANTestAddress.unique()
        let options = try LANSimulatorOptions.oneLight(hostile.version, at: address)
        let fleet = try LANSimulatorFleet(options: options, library: Repository.shippedProfiles)
        let identity = try #require(fleet.identities.first)
        #expect(identity.ip == address)
        let key = try AESKey(localKey: identity.localKey)
        let hostileBytes = try hostile.bytes(key: key)
        let thenClose = hostile.thenClose
        let rogue = try RogueLANPeer(ip: address) { _ in (hostileBytes, thenClose) }

        var profile = identity.identity.profile
        profile.frameGapMilliseconds = 0
        let power = try #require(profile.capabilities[.power]?.dataPoint)
        let clock = ManualClock()
        let hub = EventHub()
        let announcements = Announcements(hub.subscribe())
        let log = CapturedLog()
        var configuration = LANDeviceLink.Configuration()
        configuration.policy.backoff = Backoff(initial: .seconds(1), maximum: .seconds(1))
        let link = LANDeviceLink(
            device: TuyaDevice(
                id: try #require(DeviceID(identity.devId)), name: "lamp", profileID: profile.id,
                category: profile.category, transport: .lan),
            key: key, endpoint: try LANEndpoint(ip: address, version: hostile.version.rawValue, sourceID: 77),
            version: hostile.version, profile: profile, connector: TCPConnector(), configuration: configuration,
            clock: OffsetClock(clock), unixTime: { Int64(Date().timeIntervalSince1970) }, hub: hub,
            logger: log.logger)

        await link.start()
        do {
            // Two connections, each answered with the hostile bytes: each ends, and the next
            // waits for the backoff on the link's clock.
            for connection in 1...2 {
                try await rogue.expect(.accepted(connection))
                if thenClose {
                    // The rogue closed mid-frame; the link says so (offline), not busy.
                    if connection == 1 { try await announcements.first("offline") { $0.availability == .offline } }
                } else {
                    try await rogue.expect(.closedByGateway(connection))
                }
                await clock.waitForSleepers(1)
                #expect(rogue.accepted == connection, "\(hostile): no reconnect before the backoff")
                if connection == 1 { clock.advance(by: .seconds(1)) }
            }
            if let hint = hostile.hint {
                let status = try await announcements.first(hint) { $0.hint?.contains(hint) == true }
                #expect(status.availability == .offline, "\(hostile): \(status)")
            } else {
                #expect(announcements.all.isEmpty, "\(hostile): one such frame is counted, not believed")
            }
            #expect(!announcements.all.contains { $0.availability == .authFailed }, "\(hostile)")
            #expect(
                !announcements.all.contains { $0.availability == .busy },
                "\(hostile): a peer that answered is not another client holding the device")
            // Each bad frame ended a connection; the log names the first (device, fault,
            // connection) and leaves out the second, a second later on the link's clock.
            let warnings = log.lines.filter { $0.level == .warning }.map(\.message)
            if let fault = hostile.fault {
                #expect(warnings.count == 1, "\(hostile): one line for two bad frames within a minute: \(warnings)")
                let line = warnings.first ?? ""
                #expect(line.contains(identity.devId), "\(hostile): names the device: \(line)")
                #expect(line.contains(fault), "\(hostile): names the fault: \(line)")
                #expect(line.contains("connection 1 to \(address):6668"), "\(hostile): names the connection: \(line)")
            } else {
                #expect(warnings.isEmpty, "\(hostile): \(warnings)")
            }
            #expect(!log.lines.contains { $0.message.contains(identity.localKey) }, "\(hostile): no key in the log")

            // The real device comes back at that address: the link goes online and a command
            // is confirmed by its report.
            rogue.stop()
            try await fleet.start()
            // The backoff ends on the link's clock and it connects to the device, which answers
            // in real time: the clock moves again only when no answer came within a while.
            var online = false
            for _ in 0..<4 where !online {
                await clock.waitForSleepers(1)
                clock.advance(by: .seconds(1))
                online = (try? await announcements.first("online", within: 3) { $0.availability == .online }) != nil
            }
            if !online {
                let statistics = await fleet.lanStatistics(of: identity.devId)
                throw DeadlineExceeded(
                    what: "\(hostile): online; announced \(announcements.all), device \(String(describing: statistics))"
                )
            }
            let state = try await link.send([power: .bool(true)])
            guard case .light(let light) = state else { throw DeadlineExceeded(what: "a light's state") }
            #expect(light.power == true, "\(hostile): confirmed by the device's report")
            #expect(await fleet.state(of: identity.devId)?[power] == .bool(true), "\(hostile)")
            #expect(!announcements.all.contains { $0.availability == .authFailed }, "\(hostile)")
        } catch {
            rogue.stop()
            await link.stop()
            await fleet.stop()
            throw error
        }
        await link.stop()
        await fleet.stop()
    }
}
