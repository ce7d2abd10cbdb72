import DeviceSimulator
import Testing
import TuyaCore
import TuyaWire
import YoullTestSupport

/// Pure unit tests of the simulated Tuya BLE device: the test plays the gateway with the
/// TuyaWire codec (keys, frames, fragmenter, reassembler). No socket, no clock.
@Suite("SimulatedBLEDevice")
struct SimulatedBLEDeviceTests {
    static let uuid = "tuyauuid01234567"
    static let devId = "bf0123456789abcdefghij"
    static let srand: [UInt8] = [1, 2, 3, 4, 5, 6]

    /// The gateway's half of the conversation, built from the codec only.
    struct Gateway {
        var keys: BLEKeys
        var sn: UInt32 = 0
        var reassembler = BLEReassembler()
        var iv = RandomIVSource(generator: SeededGenerator(seed: 7))
        var version: UInt8 = 3
        /// The length of the packets it writes.
        var packetLength = BLEFragmenter.defaultMTU

        init(localKey: String = Fixture.localKey) throws {
            keys = try BLEKeys(localKey: localKey)
        }

        mutating func packets(
            _ command: BLECommand, data: [UInt8] = [], ackSN: UInt32 = 0, flag: BLESecurityFlag = .session,
            sn forced: UInt32? = nil
        ) throws -> [[UInt8]] {
            sn = forced ?? sn + 1
            let frame = try BLECommandFrame(sn: sn, ackSN: ackSN, command: command, data: data)
            let sealed = try BLEFrameCodec.encrypt(frame, flag: flag, keys: keys, ivSource: &iv)
            return try BLEFragmenter(protocolVersion: version, mtu: packetLength).packets(for: sealed)
        }

        /// Feeds packets to the device; returns the frames it notified and whether it disconnected.
        mutating func exchange(_ packets: [[UInt8]], with device: inout SimulatedBLEDevice) throws
            -> (frames: [BLECommandFrame], disconnected: Bool)
        {
            var actions: [SimulatedBLEDevice.Action] = []
            for packet in packets { actions += device.receive(packet: packet) }
            return try frames(in: actions)
        }

        mutating func frames(in actions: [SimulatedBLEDevice.Action]) throws
            -> (frames: [BLECommandFrame], disconnected: Bool)
        {
            var frames: [BLECommandFrame] = []
            var disconnected = false
            for action in actions {
                switch action {
                case .notify(let packet):
                    if let whole = try reassembler.receive(packet) {
                        frames.append(try BLEFrameCodec.decrypt(whole, keys: keys).frame)
                    }
                case .disconnect:
                    disconnected = true
                }
            }
            return (frames, disconnected)
        }

        /// Device info and pair; returns the pair result and the frames after it.
        mutating func handshake(_ device: inout SimulatedBLEDevice, uuid: String = uuid) throws
            -> (info: BLEDeviceInfo, result: BLEPairResult, rest: [BLECommandFrame], disconnected: Bool)
        {
            device.connect()
            let (infoFrames, _) = try exchange(packets(.deviceInfo, flag: .login), with: &device)
            let info = try BLEDeviceInfo(bytes: try #require(infoFrames.first).data)
            try keys.establishSession(srand: info.srand)
            version = info.protocolVersion.major
            let pair = try BLEPairRequest(uuid: uuid, localKey: Fixture.localKey, devId: devId)
            let (frames, disconnected) = try exchange(packets(.pair, data: pair.encoded), with: &device)
            let first = try #require(frames.first)
            #expect(first.command == .pair)
            return (info, try BLEPairResult(bytes: first.data), Array(frames.dropFirst()), disconnected)
        }
    }

    static func device(
        protocolVersion: UInt8 = 3, bound: Bool = false, options: SimulatedBLEDevice.Options = .init(fixedSrand: srand),
        misbehaviour: SimulatedBLEDevice.Misbehaviour = .init()
    ) throws -> SimulatedBLEDevice {
        try SimulatedBLEDevice(
            identity: .init(
                uuid: uuid, localKey: Fixture.localKey, devId: devId, protocolVersion: protocolVersion, isBound: bound),
            profile: Fixture.profile("ble-diffuser-dituo"), options: options, misbehaviour: misbehaviour, seed: 42)
    }

    static let power = DataPointID(1)!
    static let spray = DataPointID(2)!
    static let mode = DataPointID(3)!

    @Test("device info answers under the login key with the srand, the protocol version and the devId")
    func deviceInfo() throws {
        var device = try Self.device(protocolVersion: 4)
        var gateway = try Gateway()
        device.connect()
        let (frames, _) = try gateway.exchange(gateway.packets(.deviceInfo, flag: .login), with: &device)
        let frame = try #require(frames.first)
        #expect(frame.command == .deviceInfo)
        #expect(frame.ackSN == 1)
        #expect(frame.sn == 1)
        let info = try BLEDeviceInfo(bytes: frame.data)
        #expect(info.srand == Self.srand)
        #expect(info.protocolVersion.major == 4)
        #expect(info.isBound == false)
        #expect(info.extended?.virtualIDString == Self.devId)
    }

    @Test("pairing answers 0, then asks the gateway for the time and records the reply")
    func pairAndTime() throws {
        var device = try Self.device()
        var gateway = try Gateway()
        let (_, result, rest, disconnected) = try gateway.handshake(&device)
        #expect(result == .paired)
        #expect(!disconnected)
        let request = try #require(rest.first)
        #expect(request.command == .timeRequestString)
        let reply = try BLETimeStringReply(unixMilliseconds: 1_700_000_123_456, utcOffsetSeconds: 3600)
        _ = try gateway.exchange(
            gateway.packets(.timeRequestString, data: reply.encoded, ackSN: request.sn), with: &device)
        #expect(device.statistics.timeRepliesReceived == 1)
        #expect(device.statistics.lastTimeReply == 1_700_000_123_456)
    }

    @Test("a device already bound answers 2 to the pair request")
    func alreadyBound() throws {
        var device = try Self.device(bound: true)
        var gateway = try Gateway()
        #expect(try gateway.handshake(&device).result == .alreadyBound)
    }

    @Test("a uuid mismatch answers 1 and drops the link")
    func uuidMismatch() throws {
        var device = try Self.device()
        var gateway = try Gateway()
        let outcome = try gateway.handshake(&device, uuid: "someotheruuid000")
        #expect(outcome.result == .failed)
        #expect(outcome.disconnected)
        #expect(!device.isConnected)
    }

    @Test("a v3 write is applied, answered 0 and reported with 0x8001, and the ack is counted")
    func writeV3() throws {
        var device = try Self.device()
        var gateway = try Gateway()
        _ = try gateway.handshake(&device)
        let list = try BLEDataPointList(
            format: .v3, dataPoints: [.bool(Self.power, true), .enumeration(Self.mode, index: 1)])
        let (frames, _) = try gateway.exchange(gateway.packets(.dpWriteV3, data: list.encoded), with: &device)
        #expect(frames.map(\.command) == [.dpWriteV3, .dpReportV3])
        #expect(frames[0].data == [0])
        let report = try BLEDataPointReportV3(bytes: frames[1].data, command: frames[1].command)
        #expect(report.dataPoints.contains(.bool(Self.power, true)))
        #expect(device.state[Self.power] == .bool(true))
        #expect(device.state[Self.mode] == .enumeration("large"))
        #expect(device.reportsUnacknowledged == 1)
        _ = try gateway.exchange(gateway.packets(.dpReportV3, ackSN: frames[1].sn), with: &device)
        #expect(device.reportsUnacknowledged == 0)
        #expect(device.statistics.reportsAcknowledged == 1)
    }

    @Test("a v4 write is answered with its sn and reported with 0x8007 when reports carry time")
    func writeV4WithTime() throws {
        var device = try Self.device(protocolVersion: 4, options: .init(reportsWithTime: true, fixedSrand: Self.srand))
        var gateway = try Gateway()
        _ = try gateway.handshake(&device)
        let write = BLEDataPointWriteV4(sn: 9, dataPoints: [.bool(Self.spray, true)])
        let (frames, _) = try gateway.exchange(gateway.packets(.dpWriteV4, data: write.encoded()), with: &device)
        #expect(frames.map(\.command) == [.dpWriteV4, .dpReportV4WithTime])
        #expect(try BLEDataPointWriteV4Response(bytes: frames[0].data) == .init(sn: 9, status: 0))
        let report = try BLEDataPointReportV4(bytes: frames[1].data, command: frames[1].command)
        #expect(report.time == .milliseconds(1_700_000_000_000))
        #expect(report.dataPoints.contains(.bool(Self.spray, true)))
    }

    @Test("a value outside the profile is answered 1 and changes nothing")
    func rejectedWrite() throws {
        var device = try Self.device()
        var gateway = try Gateway()
        _ = try gateway.handshake(&device)
        let list = try BLEDataPointList(format: .v3, dataPoints: [.value(DataPointID(9)!, 5000)])
        let (frames, _) = try gateway.exchange(gateway.packets(.dpWriteV3, data: list.encoded), with: &device)
        #expect(frames.map(\.command) == [.dpWriteV3])
        #expect(frames[0].data == [1])
    }

    @Test("a query is answered and followed by a report of every DP")
    func query() throws {
        var device = try Self.device()
        var gateway = try Gateway()
        _ = try gateway.handshake(&device)
        let (frames, _) = try gateway.exchange(gateway.packets(.query), with: &device)
        #expect(frames.map(\.command) == [.query, .dpReportV3])
        let report = try BLEDataPointReportV3(bytes: frames[1].data, command: .dpReportV3)
        #expect(report.dataPoints.count == device.profile.dataPoints.count)
    }

    @Test("DP writes before pairing and a v4 write on a protocol-3 device are dropped unanswered")
    func writesNeedPairingAndTheRightCommand() throws {
        var device = try Self.device()
        var gateway = try Gateway()
        device.connect()
        let info = try gateway.exchange(gateway.packets(.deviceInfo, flag: .login), with: &device).frames[0]
        try gateway.keys.establishSession(srand: BLEDeviceInfo(bytes: info.data).srand)
        let early = try gateway.exchange(gateway.packets(.query), with: &device)
        #expect(early.frames.isEmpty)
        _ = try gateway.exchange(
            gateway.packets(
                .pair, data: BLEPairRequest(uuid: Self.uuid, localKey: Fixture.localKey, devId: Self.devId).encoded),
            with: &device)
        let write = BLEDataPointWriteV4(sn: 1, dataPoints: [.bool(Self.power, true)])
        #expect(try gateway.exchange(gateway.packets(.dpWriteV4, data: write.encoded()), with: &device).frames.isEmpty)
        #expect(device.statistics.framesRejected == 2)
    }

    @Test("a repeated sn drops the link, as the SDK does")
    func repeatedSNDropsLink() throws {
        var device = try Self.device()
        var gateway = try Gateway()
        _ = try gateway.handshake(&device)
        let outcome = try gateway.exchange(gateway.packets(.query, sn: gateway.sn), with: &device)
        #expect(outcome.disconnected)
        #expect(!device.isConnected)
        #expect(device.statistics.linkDrops == 1)
    }

    @Test("a frame under the wrong key, a bad CRC and a broken packet order are dropped without an answer")
    func strictInput() throws {
        var device = try Self.device()
        var wrong = try Gateway(localKey: "fedcba9876543210")
        device.connect()
        #expect(try wrong.exchange(wrong.packets(.deviceInfo, flag: .login), with: &device).frames.isEmpty)

        var gateway = try Gateway()
        _ = try gateway.handshake(&device)
        // A frame whose CRC does not match its content, sealed correctly.
        var plain = try BLECommandFrame(sn: gateway.sn + 1, command: .query).encoded
        plain[plain.count - 1] ^= 0xFF
        let key = try gateway.keys.key(for: .session)
        let sealed = try BLESecurityLayer(sealing: plain, flag: .session, key: key, iv: Array(repeating: 9, count: 16))
        let corrupt = try BLEFragmenter(protocolVersion: 3).packets(for: sealed.encoded)
        #expect(try gateway.exchange(corrupt, with: &device).frames.isEmpty)
        // Packet 1 of a frame that never started.
        #expect(device.receive(packet: [0x01, 0xAA, 0xBB]).isEmpty)
        #expect(device.isConnected)
        #expect(device.statistics.framesRejected == 3)
    }

    @Test("garbage, a packet gap, an oversized length and silence shape the notifications on request")
    func misbehaviour() throws {
        var device = try Self.device(misbehaviour: .init(garbageNotifications: 1))
        var gateway = try Gateway()
        device.connect()
        let actions = try gateway.packets(.deviceInfo, flag: .login).flatMap { device.receive(packet: $0) }
        guard case .notify(let stray) = actions.first else { throw Failure("no notification") }
        #expect(stray.first == 0x7F)
        #expect(throws: WireError.self) { _ = try gateway.reassembler.receive(stray) }

        device.misbehaviour = .init(packetGaps: 1)
        var gap = try Gateway()
        device.connect()
        let gapPackets = try gap.packets(.deviceInfo, flag: .login).flatMap { device.receive(packet: $0) }
        #expect(throws: WireError.packetOutOfOrder(expected: 1, got: 2)) { _ = try gap.frames(in: gapPackets) }

        device.misbehaviour = .init(oversizedLengths: 1)
        var big = try Gateway()
        device.connect()
        let bigPackets = try big.packets(.deviceInfo, flag: .login).flatMap { device.receive(packet: $0) }
        #expect(throws: WireError.self) { _ = try big.frames(in: bigPackets) }

        device.misbehaviour = .init(isSilent: true)
        var quiet = try Gateway()
        device.connect()
        #expect(try quiet.packets(.deviceInfo, flag: .login).flatMap { device.receive(packet: $0) }.isEmpty)
    }

    @Test("the diffuser's tank runs dry and the fault is reported over BLE")
    func tankRunsDry() throws {
        var device = try SimulatedBLEDevice(
            identity: .init(uuid: Self.uuid, localKey: Fixture.localKey, devId: Self.devId, protocolVersion: 3),
            profile: Fixture.profile("ble-diffuser-dituo"), options: .init(fixedSrand: Self.srand),
            behaviour: DeviceBehaviour(tankDuration: .seconds(60)))
        var gateway = try Gateway()
        _ = try gateway.handshake(&device)
        let list = try BLEDataPointList(format: .v3, dataPoints: [.bool(Self.power, true), .bool(Self.spray, true)])
        _ = try gateway.exchange(gateway.packets(.dpWriteV3, data: list.encoded), with: &device)
        let (frames, _) = try gateway.frames(in: device.advance(to: .seconds(61)))
        let report = try BLEDataPointReportV3(bytes: try #require(frames.last).data, command: .dpReportV3)
        #expect(report.dataPoints.contains(try .bitmap(DataPointID(12)!, 1)))
        #expect(device.state[Self.spray] == .bool(false))
    }
}

struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
