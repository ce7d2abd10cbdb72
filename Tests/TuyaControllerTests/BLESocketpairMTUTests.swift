import DeviceSimulator
import Testing
import TuyaCore
import YoullTestSupport

@testable import TuyaController

/// The whole BLE stack over a socketpair (see `BLESocketpairSessionTests`), counting the ATT
/// packets a DP write takes: the gateway offers an ATT MTU of 247, and the simulated
/// peripheral accepts it like many Tuya modules, or refuses the exchange like older firmware.
@Suite("Tuya BLE packets over a socketpair with a larger ATT MTU")
struct BLESocketpairMTUTests {
    @Test(
        "a DP write → confirmed crosses in 4 packets when the device takes 247, in 12 of 20 bytes when it refuses the exchange",
        arguments: [(UInt16?.some(247), 244, 4), (nil, 244, 12), (247, 20, 12)])
    func packetsPerWrite(serverMTU: UInt16?, maximumPacketLength: Int, expected: Int) async throws {
        let rig = try BLESocketpairSessionTests.Rig(
            protocolVersion: 4, options: .init(serverMTU: serverMTU, maximumPacketLength: maximumPacketLength))
        await rig.link.start()
        try await rig.availability(.online)
        let peripheral = rig.peripheral
        // The handshake's last report acknowledged: nothing else is on its way.
        try await withDeadline(60, "the handshake's report acknowledged") {
            try await peripheral.waitForStatistics { $0.reportsAcknowledged >= 1 }
        }
        let before = await peripheral.statistics

        let state = try await rig.link.send(try rig.command(power: true))
        if case .diffuser(let diffuser) = state { #expect(diffuser.power == true) }
        try await withDeadline(60, "the command's report acknowledged") {
            try await peripheral.waitForStatistics { $0.reportsAcknowledged > before.reportsAcknowledged }
        }
        let after = await peripheral.statistics
        let packets = (after.packetsReceived - before.packetsReceived) + (after.packetsSent - before.packetsSent)
        #expect(
            packets == expected,
            "written \(after.packetsReceived - before.packetsReceived), notified \(after.packetsSent - before.packetsSent)"
        )
        #expect(after.framesRejected == 0, "no packet was too long for the device")
        await rig.link.stop()
    }
}
