import DeviceSimulator
import Testing
import TuyaCore
import TuyaWire
import YoullTestSupport

/// Pure: how long the simulated device's packets are, as in the Tuya BLE SDK (protocol/TUYA.md
/// §1.3, §1.6): a protocol-4 device sends packets of the length the device-info request
/// announces when its build takes that much, and drops packets longer than its build takes.
@Suite("SimulatedBLEDevice packet length")
struct SimulatedBLEPacketLengthTests {
    typealias Gateway = SimulatedBLEDeviceTests.Gateway

    /// The packets a device notifies in answer to a device-info request with `body`.
    static func deviceInfoPackets(_ device: inout SimulatedBLEDevice, body: [UInt8]) throws -> [[UInt8]] {
        var gateway = try Gateway()
        device.connect()
        return try gateway.packets(.deviceInfo, data: body, flag: .login).flatMap { device.receive(packet: $0) }
            .compactMap { action in
                if case .notify(let packet) = action { packet } else { nil }
            }
    }

    @Test("a protocol-4 device answers in packets of the announced length when its build takes it")
    func announced() throws {
        var device = try SimulatedBLEDeviceTests.device(protocolVersion: 4)
        let packets = try Self.deviceInfoPackets(&device, body: [0x00, 0xF3])
        #expect(device.sendPacketLength == 243)
        #expect(packets.count == 1, "the whole device-info reply in one packet")
        #expect(packets.allSatisfy { $0.count <= 243 })
        #expect(device.statistics.packetsSent == 1)
        #expect(device.statistics.packetsReceived == 2, "the request itself came in 20-byte packets")
    }

    @Test(
        "20-byte packets from a build limited to 20, a protocol-3 device, an empty request or a length of 0",
        arguments: [(UInt8(4), 20, [UInt8(0x00), 0xF3]), (3, 244, [0x00, 0xF3]), (4, 244, []), (4, 244, [0, 0])])
    func twenty(protocolVersion: UInt8, limit: Int, body: [UInt8]) throws {
        var device = try SimulatedBLEDeviceTests.device(
            protocolVersion: protocolVersion,
            options: .init(fixedSrand: SimulatedBLEDeviceTests.srand, maximumPacketLength: limit))
        let packets = try Self.deviceInfoPackets(&device, body: body)
        #expect(device.sendPacketLength == 20)
        #expect(packets.count > 1)
        #expect(packets.allSatisfy { $0.count <= 20 })
    }

    @Test("a packet longer than the build takes is dropped unanswered; the next frame is handled")
    func tooLong() throws {
        var device = try SimulatedBLEDeviceTests.device(
            protocolVersion: 4, options: .init(fixedSrand: SimulatedBLEDeviceTests.srand, maximumPacketLength: 20))
        var gateway = try Gateway()
        device.connect()
        gateway.packetLength = 64
        let long = try gateway.packets(.deviceInfo, data: [0x00, 0x14], flag: .login)
        #expect(long.count == 1)
        #expect(long.flatMap { device.receive(packet: $0) }.isEmpty)
        #expect(device.statistics.framesRejected == 1)
        gateway.packetLength = 20
        let (frames, _) = try gateway.exchange(
            gateway.packets(.deviceInfo, data: [0x00, 0x14], flag: .login), with: &device)
        #expect(frames.map(\.command) == [.deviceInfo])
    }
}
