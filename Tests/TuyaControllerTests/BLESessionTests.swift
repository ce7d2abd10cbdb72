import YoullTestSupport
import DeviceSimulator
import Foundation
import Testing
import TuyaCore
import TuyaWire

@testable import TuyaController

/// Pure tests of the session state machine against the simulated device core: packets
/// are handed across by hand, time is a Duration. No actor, no clock, no transport.
@Suite("BLESession")
struct BLESessionTests {
    static let uuid = "tuyauuid01234567"
    static let localKey = "0123456789abcdef"
    static let devId = "bf0123456789abcdefghij"

    static func pair(protocolVersion: UInt8 = 3, gatewayKey: String = localKey) throws
        -> (BLESession, SimulatedBLEDevice)
    {
        let profile = try #require(BLEDeviceLinkTests.library.profile(id: "ble-diffuser-dituo"))
        let session = BLESession(
            credentials: .init(uuid: uuid, localKey: gatewayKey, devId: devId), profile: profile,
            ivSource: RandomIVSource(generator: SeededGenerator(seed: 9)))
        var device = try SimulatedBLEDevice(
            identity: .init(uuid: uuid, localKey: localKey, devId: devId, protocolVersion: protocolVersion),
            profile: profile, options: .init(timeRequest: .timeRequestDate), seed: 2)
        device.connect()
        return (session, device)
    }

    /// Hands packets back and forth until neither side has anything to say; returns
    /// the session's non-write actions.
    static func run(
        _ actions: [BLESession.Action], _ session: inout BLESession, _ device: inout SimulatedBLEDevice
    ) -> [BLESession.Action] {
        var outcome: [BLESession.Action] = []
        var toDevice = actions
        while !toDevice.isEmpty {
            var notifications: [[UInt8]] = []
            for action in toDevice {
                guard case .write(let packet) = action else {
                    outcome.append(action)
                    continue
                }
                for reply in device.receive(packet: packet) {
                    if case .notify(let bytes) = reply { notifications.append(bytes) }
                }
            }
            toDevice = notifications.flatMap {
                session.receive(packet: $0, now: .zero, unixMilliseconds: 1_700_000_000_000)
            }
        }
        return outcome
    }

    @Test("the handshake pairs, answers the date request, queries and delivers the report")
    func handshake() throws {
        var (session, device) = try Self.pair(protocolVersion: 4)
        let outcome = Self.run(session.connected(now: .zero), &session, &device)
        #expect(outcome.contains(.ready(protocolVersion: 4, alreadyBound: false)))
        guard case .report(let values)? = outcome.last else { throw DeadlineExceeded(what: "a report") }
        #expect(values.count == device.profile.dataPoints.count)
        #expect(session.phase == .ready)
        #expect(device.statistics.timeRepliesReceived == 1)
        #expect(device.reportsUnacknowledged == 0)
        #expect(device.receivedSNs == Array(1...session.lastSN))
    }

    @Test("a protocol-4 device gets 0x0027 writes and answers them with the write's own sn")
    func writeV4() throws {
        var (session, device) = try Self.pair(protocolVersion: 4)
        _ = Self.run(session.connected(now: .zero), &session, &device)
        let outcome = Self.run(session.write([DataPointID(1)!: .bool(true)], now: .zero), &session, &device)
        #expect(outcome == [.report([DataPointID(1)!: .bool(true)])])
        #expect(device.statistics.writesApplied == 1)
        #expect(!session.isBusy)
    }

    @Test("an unanswered device-info request becomes deviceInfoUnanswered at the response timeout, not before")
    func deviceInfoTimeout() throws {
        var (session, device) = try Self.pair(gatewayKey: "fedcba9876543210")
        #expect(Self.run(session.connected(now: .zero), &session, &device).isEmpty)
        #expect(session.nextWake == .seconds(60))
        let early = session.tick(now: .seconds(59))
        #expect(early.isEmpty)
        let late = session.tick(now: .seconds(60))
        #expect(late == [.fail(.deviceInfoUnanswered)])
        #expect(session.phase == .closed)
    }

    @Test("a device-info answer sealed with another key is reported as a wrong key")
    func wrongKeyAnswer() throws {
        var (session, _) = try Self.pair()
        // A peer whose login key differs answers anyway (another device at the address).
        let forger = try BLEKeys(localKey: "fedcba9876543210")
        var iv = RandomIVSource(generator: SeededGenerator(seed: 1))
        _ = session.connected(now: .zero)
        let info = BLEDeviceInfo(
            firmwareVersion: .init(major: 1, minor: 0), protocolVersion: .init(major: 3, minor: 0), isBound: false,
            srand: [1, 2, 3, 4, 5, 6])
        let frame = try BLECommandFrame(sn: 1, ackSN: 1, command: .deviceInfo, data: info.encoded())
        let sealed = try BLEFrameCodec.encrypt(frame, flag: .login, keys: forger, ivSource: &iv)
        var actions: [BLESession.Action] = []
        for packet in try BLEFragmenter(protocolVersion: 3).packets(for: sealed) {
            actions += session.receive(packet: packet, now: .zero, unixMilliseconds: 0)
        }
        #expect(actions == [.fail(.wrongKey)])
    }

    @Test("sequence numbers restart at 1 on every connection and never repeat within one")
    func snPerConnection() throws {
        var (session, device) = try Self.pair()
        _ = Self.run(session.connected(now: .zero), &session, &device)
        let first = session.lastSN
        _ = Self.run(session.query(now: .zero), &session, &device)
        #expect(session.lastSN > first)
        session.disconnected()
        device.connect()
        _ = Self.run(session.connected(now: .zero), &session, &device)
        #expect(device.receivedSNs == Array(1...session.lastSN))
        #expect(device.statistics.linkDrops == 0)
    }

    @Test("a device frame replayed on the same connection is dropped as a repeated sn, not reported again")
    func replayedFrameDropped() throws {
        var (session, device) = try Self.pair(protocolVersion: 4)
        _ = Self.run(session.connected(now: .zero), &session, &device)
        // The device's answer to a query, recorded on the air.
        var recorded: [[UInt8]] = []
        for case .write(let packet) in session.query(now: .zero) {
            for case .notify(let bytes) in device.receive(packet: packet) { recorded.append(bytes) }
        }
        let first = recorded.flatMap { session.receive(packet: $0, now: .zero, unixMilliseconds: 0) }
        #expect(first.contains { if case .report = $0 { true } else { false } })
        let replay = recorded.flatMap { session.receive(packet: $0, now: .zero, unixMilliseconds: 0) }
        #expect(!replay.contains { if case .report = $0 { true } else { false } }, "\(replay)")
        #expect(
            replay.contains {
                if case .problem(.repeatedSequence) = $0 { true } else { false }
            }, "\(replay)")
        #expect(session.phase == .ready)
    }

    @Test("the session's credentials never print the local key")
    func credentialsRedacted() {
        let key = "Zq9XwLm2Pt7Rv4Ks"
        let credentials = BLESession.Credentials(uuid: Self.uuid, localKey: key, devId: Self.devId)
        for text in [String(describing: credentials), String(reflecting: credentials), "\(credentials)"] {
            #expect(!text.contains(key.prefix(6)))
            #expect(text.contains(Self.devId))
        }
    }
}
