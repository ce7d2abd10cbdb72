import DeviceSimulator
import Testing
import TuyaCore
import TuyaWire
import YoullTestSupport

@testable import TuyaController

/// Pure: the length of the packets the session writes, against the simulated device core
/// (protocol/TUYA.md §1.3, §1.6). 20 bytes until the device has sent longer packets itself.
@Suite("BLESession packet length")
struct BLESessionPacketLengthTests {
    static func session() throws -> BLESession {
        let profile = try #require(BLEDeviceLinkTests.library.profile(id: "ble-diffuser-dituo"))
        return BLESession(
            credentials: .init(
                uuid: BLESessionTests.uuid, localKey: BLESessionTests.localKey, devId: BLESessionTests.devId),
            profile: profile, ivSource: RandomIVSource(generator: SeededGenerator(seed: 9)))
    }

    static func device(protocolVersion: UInt8, maximumPacketLength: Int = 244) throws -> SimulatedBLEDevice {
        let profile = try #require(BLEDeviceLinkTests.library.profile(id: "ble-diffuser-dituo"))
        var device = try SimulatedBLEDevice(
            identity: .init(
                uuid: BLESessionTests.uuid, localKey: BLESessionTests.localKey, devId: BLESessionTests.devId,
                protocolVersion: protocolVersion),
            profile: profile, options: .init(maximumPacketLength: maximumPacketLength), seed: 2)
        device.connect()
        return device
    }

    static func packets(_ actions: [BLESession.Action]) -> [[UInt8]] {
        actions.compactMap { action in
            if case .write(let packet) = action { packet } else { nil }
        }
    }

    /// The body of the device-info request in `actions` (the first frame, under the login key).
    static func deviceInfoBody(_ actions: [BLESession.Action]) throws -> [UInt8]? {
        var reassembler = BLEReassembler()
        for packet in packets(actions) {
            if let whole = try reassembler.receive(packet) {
                let keys = try BLEKeys(localKey: BLESessionTests.localKey)
                return try BLEFrameCodec.decrypt(whole, keys: keys).frame.data
            }
        }
        return nil
    }

    /// Connects over a link carrying `linkLength`-byte packets and runs the handshake; returns
    /// the device-info request's body.
    static func handshake(
        _ session: inout BLESession, _ device: inout SimulatedBLEDevice, linkLength: Int
    ) throws -> [UInt8] {
        let hello = session.connected(now: .zero, maximumPacketLength: linkLength)
        let body = try #require(try deviceInfoBody(hello), "a whole device-info request")
        let outcome = BLESessionTests.run(hello, &session, &device)
        #expect(outcome.contains { if case .ready = $0 { true } else { false } }, "paired")
        return body
    }

    @Test(
        "on a 244-byte link the request announces 243, and a DP write leaves in one packet once the device answered long"
    )
    func longLink() throws {
        var session = try Self.session()
        var device = try Self.device(protocolVersion: 4)
        #expect(try Self.handshake(&session, &device, linkLength: 244) == [0x00, 0xF3])
        #expect(device.sendPacketLength == 243)
        #expect(session.packetLength > 20)
        let write = session.write([DataPointID(1)!: .bool(true)], now: .zero)
        #expect(Self.packets(write).count == 1)
        let before = device.statistics
        let outcome = BLESessionTests.run(write, &session, &device)
        #expect(outcome == [.report([DataPointID(1)!: .bool(true)])])
        #expect(device.statistics.packetsSent - before.packetsSent == 2, "the answer and the report, one packet each")
        #expect(device.statistics.packetsReceived - before.packetsReceived == 2, "the write and the report's ack")
    }

    @Test("at the default MTU the request is empty, as before, and a DP write takes three 20-byte packets")
    func defaultLink() throws {
        var session = try Self.session()
        var device = try Self.device(protocolVersion: 4)
        #expect(try Self.handshake(&session, &device, linkLength: 20) == [])
        #expect(device.sendPacketLength == 20)
        #expect(session.packetLength == 20)
        let write = Self.packets(session.write([DataPointID(1)!: .bool(true)], now: .zero))
        #expect(write.count == 3)
        #expect(write.allSatisfy { $0.count <= 20 })
    }

    @Test(
        "a device that keeps to 20-byte packets on a long link (a build limited to 20, protocol 3) is written 20 bytes at a time",
        arguments: [(UInt8(4), 20), (3, 244)])
    func shortDevice(protocolVersion: UInt8, limit: Int) throws {
        var session = try Self.session()
        var device = try Self.device(protocolVersion: protocolVersion, maximumPacketLength: limit)
        _ = try Self.handshake(&session, &device, linkLength: 244)
        #expect(session.packetLength == 20)
        #expect(device.statistics.framesRejected == 0, "no packet was too long for the device")
        let write = Self.packets(session.write([DataPointID(1)!: .bool(true)], now: .zero))
        #expect(write.count == 3)
        #expect(write.allSatisfy { $0.count <= 20 })
    }

    @Test("the packet length starts over at 20 on the next connection")
    func reconnect() throws {
        var session = try Self.session()
        var device = try Self.device(protocolVersion: 4)
        _ = try Self.handshake(&session, &device, linkLength: 244)
        #expect(session.packetLength > 20)
        session.disconnected()
        device.linkLost()
        device.connect()
        let hello = Self.packets(session.connected(now: .zero, maximumPacketLength: 20))
        #expect(session.packetLength == 20)
        #expect(hello.allSatisfy { $0.count <= 20 })
    }
}
