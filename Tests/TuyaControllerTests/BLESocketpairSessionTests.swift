import Timing
import BLELink
import DeviceSimulator
import Foundation
import Testing
import TuyaCore
import TuyaWire
import YoullTestSupport

@testable import TuyaController

/// The whole BLE stack over a real `socketpair(AF_UNIX, SOCK_SEQPACKET)`: the gateway's
/// `BLEDeviceLink` → `GATTTuyaTransport` → GATT client → ATT bearer on one end; the
/// simulated peripheral's GATT server → simulated Tuya BLE device on the other. Every byte
/// between them is real ATT and Tuya BLE; only the radio is missing.
@Suite("Tuya BLE sessions over a socketpair")
struct BLESocketpairSessionTests {
    static let uuid = "tuyauuid01234567"
    static let localKey = "0123456789abcdef"
    static let devId = "bf0123456789abcdefghij"

    static var library: ProfileLibrary {
        ProfileLibrary.load(directories: [
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("devices")
        ])
    }

    struct Rig {
        let hub = EventHub()
        let profile: DeviceProfile
        let peripheral: SimulatedBLEPeripheral
        let link: BLEDeviceLink
        let events: Mailbox<ControllerEvent>

        init(protocolVersion: UInt8, options: SimulatedBLEDevice.Options = .init()) throws {
            let profile = try #require(BLESocketpairSessionTests.library.profile(id: "ble-diffuser-dituo"))
            self.profile = profile
            let device = try SimulatedBLEDevice(
                identity: .init(uuid: uuid, localKey: localKey, devId: devId, protocolVersion: protocolVersion),
                profile: profile, options: options, seed: 7)
            let peripheral = SimulatedBLEPeripheral(device: device)
            self.peripheral = peripheral
            let layout: TuyaGATTLayout = protocolVersion == 3 ? .a201 : .fd50
            let transport = GATTTuyaTransport {
                let (gateway, device) = try SocketChannel.pair()
                await peripheral.accept(device, layout: layout)
                return gateway
            }
            events = hub.subscribe()
            link = BLEDeviceLink(
                device: TuyaDevice(
                    id: DeviceID(devId)!, name: "diffuser", profileID: profile.id, category: .diffuser, transport: .ble),
                credentials: .init(uuid: uuid, localKey: localKey, devId: devId), profile: profile,
                transport: transport, slots: BLEConnectionSlots(), clock: OffsetClock(ContinuousClock()),
                unixMilliseconds: { 1_700_000_000_000 }, hub: hub)
        }

        /// The next availability change to `availability` (bounded: a broken stack fails, not hangs).
        func availability(_ availability: Availability) async throws {
            let events = events
            // Generous: with the whole suite running on 2 cores, CPU-bound tests can hold both
            // cooperative threads for many seconds; the bound is there to fail instead of hang.
            let seen = try? await withDeadline(90, "availability \(availability.rawValue)") {
                for await event in events {
                    if case .availabilityChanged(_, let status) = event, status.availability == availability {
                        return true
                    }
                }
                return false
            }
            #expect(seen == true, "never became \(availability.rawValue)")
        }

        func command(power: Bool) throws -> DataPoints {
            try DataPointMapper(profile: profile).writes(for: .diffuser(DiffuserCommand(power: power)))
        }
    }

    @Test(
        "protocol 3 (A201) and 4 (FD50): pair, command → confirmed, reports acknowledged, reconnect after the device drops the link",
        arguments: [3, 4] as [UInt8])
    func fullSession(protocolVersion: UInt8) async throws {
        let rig = try Rig(protocolVersion: protocolVersion)
        await rig.link.start()
        try await rig.availability(.online)

        let state = try await rig.link.send(try rig.command(power: true))
        guard case .diffuser(let diffuser) = state else {
            Issue.record("not a diffuser state: \(state)")
            return
        }
        #expect(diffuser.power == true)
        #expect(await rig.peripheral.state[DataPointID(1)!] == .bool(true))
        let statistics = await rig.peripheral.statistics
        #expect(statistics.pairings == 1)
        #expect(statistics.writesApplied >= 1)
        #expect(statistics.framesRejected == 0)

        // The device drops the link: the gateway reconnects, pairs again and still drives it.
        await rig.peripheral.dropLink()
        try await rig.availability(.online)
        let after = try await rig.link.send(try rig.command(power: false))
        if case .diffuser(let diffuser) = after { #expect(diffuser.power == false) }
        #expect(await rig.peripheral.state[DataPointID(1)!] == .bool(false))
        // The gateway acknowledges the report after it confirmed the command, so the ack may
        // still be on the socket: wait for the device to count it (bounded).
        let peripheral = rig.peripheral
        let acknowledged = try? await withDeadline(60, "a report acknowledged") {
            try await peripheral.waitForStatistics { $0.reportsAcknowledged >= 1 }
            return true
        }
        #expect(acknowledged == true, "the device never saw a report acknowledged")
        let final = await rig.peripheral.statistics
        #expect(final.pairings == 2)
        #expect(final.framesRejected == 0)
        await rig.link.stop()
    }
}
