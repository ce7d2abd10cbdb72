import BLELink
import Foundation
import Testing
import TuyaCore
import YoullTestSupport

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
    static let peripheral = BumbleRig.Peripheral(
        address: address, layout: "a201", uuid: uuid, localKey: localKey, devId: devId, productID: "if1nolcm",
        protocolVersion: 4,
        dps: [
            "1": .bool(false), "2": .bool(false), "3": .enumeration(0), "5": .enumeration(0), "6": .value(0),
            "7": .bool(false), "9": .value(50), "12": .enumeration(0), "101": .enumeration(0),
        ])

    struct Rig {
        let bumble: BumbleRig
        let link: HCIControllerLink
        let clock = ManualClock()
        let controller: TuyaController
        let events: AsyncStream<ControllerEvent>

        init() async throws {
            bumble = try await BumbleRig.start(peripherals: [ControllerHCIBumbleTests.peripheral])
            link = HCIControllerLink(setting: try BLETransportSetting(parsing: bumble.transport))
            controller = TuyaController(
                bus: InMemoryBus(), library: BLEDeviceLinkTests.library, radio: .hci(link), clock: clock,
                unixTime: { 1_700_000_000 })
            events = controller.events()
            try await controller.start()
        }

        func pair(key: String = localKey, uuid: String = uuid) async throws -> PairingOutcome {
            try await controller.pairBLE(
                devId: devId, localKey: key,
                identity: BLEIdentity(address: address, randomAddress: true, uuid: uuid), name: "aroma",
                productID: "if1nolcm")
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
        _ = try await rig.next("offline") { event in
            if case .availabilityChanged(device.id, let status) = event {
                status.availability == .offline
            } else {
                false
            }
        }
        await rig.clock.waitForSleepers()
        rig.clock.advance(by: .seconds(1))
        _ = try await rig.next("online again") { event in
            if case .availabilityChanged(device.id, let status) = event {
                status.availability == .online
            } else {
                false
            }
        }
        try await rig.bumble.expectLine(containing: "\(Self.address) paired", after: mark)
        let again = try await rig.controller.send(.diffuser(DiffuserCommand(mistMode: "small")), to: device.id)
        #expect(Self.diffuser(again)?.mistMode == "small")
        await rig.stop()
    }

    @Test("a wrong local key is the wrong_key outcome, a wrong uuid is refused; neither leaves a device")
    func wrongKeyAndUUID() async throws {
        let rig = try await Rig()
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
