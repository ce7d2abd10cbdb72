import BLELink
import Foundation
import Testing
import TuyaCore
import YoullTestSupport
import Timing

@testable import TuyaController

/// `TuyaController` on `ble.transport: h4-tcp:…`: the gateway's own HCI host over TCP to
/// Bumble's virtual controller, and a Bumble peripheral answering the Tuya BLE protocol
/// (Tests/Python). Real parts: a Python child process, a TCP socket, Bumble's controllers and
/// host stack. The controller's timers run on a manual clock; the radio and ATT on real time.
@Suite("TuyaController over the HCI host against Bumble", .serialized)
struct ControllerHCIBumbleTests {
    static let address = "C4:23:4D:12:34:56"
    static let uuid = "tuyabumble012345"
    static let localKey = "0123456789abcdef"
    static let devId = "bf0123456789bumbleble"
    /// The Dituo diffuser's DPs (devices/ble-diffuser-dituo.yaml), all off.
    static let peripheral = diffuser(address: address, uuid: uuid, devId: devId)

    static func diffuser(
        address: String, uuid: String, devId: String, layout: String = "a201", protocolVersion: Int = 4,
        gatt: String = "tuya"
    ) -> BumbleRig.Peripheral {
        BumbleRig.Peripheral(
            address: address, layout: layout, uuid: uuid, localKey: localKey, devId: devId, productID: "if1nolcm",
            protocolVersion: protocolVersion,
            dps: [
                "1": .bool(false), "2": .bool(false), "3": .enumeration(0), "5": .enumeration(0), "6": .value(0),
                "7": .bool(false), "9": .value(50), "12": .enumeration(0), "101": .enumeration(0),
            ],
            gatt: gatt)
    }

    struct Rig {
        let bumble: BumbleRig
        let link: HCIControllerLink
        let clock = ManualClock()
        let controller: TuyaController
        let events: Mailbox<ControllerEvent>

        init(peripherals: [BumbleRig.Peripheral] = [ControllerHCIBumbleTests.peripheral]) async throws {
            bumble = try await BumbleRig.start(peripherals: peripherals)
            link = HCIControllerLink(setting: try BLETransportSetting(parsing: bumble.transport))
            controller = TuyaController(
                bus: InMemoryBus(), library: BLEDeviceLinkTests.library,
                radio: .hci(link, connectionLimit: 3), clock: clock, unixTime: { 1_700_000_000 })
            events = controller.events()
            try await controller.start()
        }

        func pair(
            key: String = localKey, uuid: String = uuid, address: String = address, devId: String = devId,
            name: String = "aroma"
        ) async throws -> PairingOutcome {
            try await controller.pairBLE(
                devId: devId, localKey: key,
                identity: BLEIdentity(address: address, randomAddress: true, uuid: uuid), name: name,
                productID: "if1nolcm")
        }

        /// Waits until `device` is offline (or online again), with the status that says so.
        func availability(_ device: DeviceID, _ wanted: Availability) async throws -> ConnectionStatus {
            let event = try await next("\(device) \(wanted)") { event in
                if case .availabilityChanged(device, let status) = event {
                    status.availability == wanted
                } else {
                    false
                }
            }
            guard case .availabilityChanged(_, let status) = event else { throw BumbleRig.Failure(description: "?") }
            return status
        }

        func stop() async {
            await controller.stop()
            await link.close()
            bumble.stop()
        }

        /// The next event matching `predicate` (the controller's events come as the link reacts).
        func next(_ what: String, _ predicate: (ControllerEvent) -> Bool) async throws -> ControllerEvent {
            for await event in events where predicate(event) { return event }
            throw BumbleRig.Failure(description: "events ended before \(what)")
        }
    }

    static func diffuser(_ state: DeviceState?) -> DiffuserState? {
        if case .diffuser(let diffuser)? = state { diffuser } else { nil }
    }

    @Test(
        "pair with the real bind sequence, drive the mist, hear the device's own report, recover after it drops the link"
    )
    func pairDriveRecover() async throws {
        let rig = try await Rig()
        let outcome = try await rig.pair()
        guard case .paired(let device) = outcome else {
            Issue.record("expected paired, got \(outcome)")
            await rig.stop()
            return
        }
        try await rig.bumble.expectLine(containing: "\(Self.address) paired")
        try await rig.bumble.expectLine(containing: "\(Self.address) time ", timeout: .seconds(10))

        let state = try await rig.controller.send(
            .diffuser(DiffuserCommand(power: true, mistMode: "large")), to: device.id)
        #expect(Self.diffuser(state)?.mistMode == "large" && Self.diffuser(state)?.power == true)
        try await rig.bumble.expectLine(containing: "\(Self.address) write 1=true,3=1")
        #expect(Self.diffuser(await rig.controller.confirmedState(of: device.id))?.power == true)

        // The device switches itself off (its button): a notification the gateway acknowledges.
        var mark = rig.bumble.mark
        rig.bumble.send("report \(Self.address) 1 bool false")
        _ = try await rig.next("the device's report") { event in
            if case .stateChanged(device.id, let state) = event { Self.diffuser(state)?.power == false } else { false }
        }
        try await rig.bumble.expectLine(containing: "\(Self.address) ack ", after: mark)

        // The device ends the link: offline, then back after the backoff, paired again.
        mark = rig.bumble.mark
        rig.bumble.send("disconnect \(Self.address)")
        _ = try await rig.availability(device.id, .offline)
        // The reconnect's backoff, not any other timer armed meanwhile (an ATT timeout).
        await rig.clock.waitForSleeper(dueBy: rig.clock.now.advanced(by: .seconds(1)))
        rig.clock.advance(by: .seconds(1))
        _ = try await rig.availability(device.id, .online)
        try await rig.bumble.expectLine(containing: "\(Self.address) paired", after: mark)
        let again = try await rig.controller.send(.diffuser(DiffuserCommand(mistMode: "small")), to: device.id)
        #expect(Self.diffuser(again)?.mistMode == "small")

        // Out of range: the radio link times out (supervision timeout); back in range, it reconnects.
        mark = rig.bumble.mark
        rig.bumble.send("out-of-range \(Self.address)")
        _ = try await rig.availability(device.id, .offline)
        try await rig.bumble.expectLine(containing: "\(Self.address) disconnected reason=0x08", after: mark)
        rig.bumble.send("in-range \(Self.address)")
        try await rig.bumble.expectLine(containing: "\(Self.address) in-range", after: mark)
        // The reconnect's backoff, not any other timer armed meanwhile (an ATT timeout).
        await rig.clock.waitForSleeper(dueBy: rig.clock.now.advanced(by: .seconds(1)))
        rig.clock.advance(by: .seconds(1))
        _ = try await rig.availability(device.id, .online)
        let back = try await rig.controller.send(.diffuser(DiffuserCommand(mistMode: "large")), to: device.id)
        #expect(Self.diffuser(back)?.mistMode == "large")
        await rig.stop()
    }

    @Test("the controller process killed: the device goes offline, and reconnecting names the refused transport")
    func controllerGone() async throws {
        let rig = try await Rig()
        guard case .paired(let device) = try await rig.pair() else {
            Issue.record("not paired")
            await rig.stop()
            return
        }
        rig.bumble.kill()
        let lost = try await rig.availability(device.id, .offline)
        #expect(lost.hint == "BLE link lost; reconnecting")
        // The reconnect's backoff, not any other timer armed meanwhile (an ATT timeout).
        await rig.clock.waitForSleeper(dueBy: rig.clock.now.advanced(by: .seconds(1)))
        rig.clock.advance(by: .seconds(1))
        let refused = try await rig.next("the reconnect refused") { event in
            if case .availabilityChanged(device.id, let status) = event {
                status.hint?.contains("connection refused") == true
            } else {
                false
            }
        }
        guard case .availabilityChanged(_, let status) = refused else { return }
        #expect(status.hint?.contains(rig.bumble.transport) == true, "\(status.hint ?? "")")
        await rig.stop()
    }

    @Test("three diffusers paired and driven at once, each on its own connection within the budget of 3")
    func threeAtOnce() async throws {
        let peripherals = (1...3).map { index in
            Self.diffuser(
                address: "C4:23:4D:12:35:0\(index)", uuid: "tuyabumble01234\(index)",
                devId: "bf0123456789bumble00\(index)",
                layout: index == 2 ? "fd50" : "a201", protocolVersion: index == 3 ? 3 : 4)
        }
        let rig = try await Rig(peripherals: peripherals)
        let devices = try await withThrowingTaskGroup(of: DeviceID?.self) { group in
            for peripheral in peripherals {
                group.addTask {
                    let outcome = try await rig.pair(
                        uuid: peripheral.uuid, address: peripheral.address, devId: peripheral.devId,
                        name: "aroma-\(peripheral.address.suffix(2))")
                    if case .paired(let device) = outcome { return device.id }
                    return nil
                }
            }
            return try await group.reduce(into: [DeviceID]()) { if let id = $1 { $0.append(id) } }
        }
        #expect(devices.count == 3)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for id in devices {
                group.addTask {
                    let state = try await rig.controller.send(.diffuser(DiffuserCommand(power: true)), to: id)
                    #expect(Self.diffuser(state)?.power == true)
                }
            }
            try await group.waitForAll()
        }
        #expect(try await rig.link.host().connectedHandles.count == 3)
        await rig.stop()
    }

    @Test(
        "a wrong local key is wrong_key, a wrong uuid refused, a device without the Tuya service not found; none stays")
    func failures() async throws {
        let impostor = Self.diffuser(
            address: "C4:23:4D:12:34:99", uuid: "tuyabumble099999", devId: "bf0123456789bumble999", gatt: "none")
        let rig = try await Rig(peripherals: [Self.peripheral, impostor])
        let noService = try await rig.pair(uuid: impostor.uuid, address: impostor.address, devId: impostor.devId)
        guard case .notFound(let reason) = noService else {
            Issue.record("expected notFound, got \(noService)")
            await rig.stop()
            return
        }
        #expect(reason.contains("no Tuya GATT service") && reason.contains("180f"), "\(reason)")
        #expect(try await rig.pair(uuid: "notthedeviceuuid") == .refused)
        try await rig.bumble.expectLine(containing: "\(Self.address) pair refused")

        // The device drops the frame it cannot decrypt and says nothing; the session's 60 s
        // response timeout (on the manual clock) then names the key.
        let mark = rig.bumble.mark
        let attempt = Task { try await rig.pair(key: "fedcba9876543210") }
        try await rig.bumble.expectLine(containing: "\(Self.address) rejected frame", after: mark)
        await rig.clock.waitForSleepers(2)
        rig.clock.advance(by: .seconds(60))
        #expect(try await attempt.value == .wrongKey)
        #expect(await rig.controller.devices().isEmpty)
        await rig.stop()
    }
}
