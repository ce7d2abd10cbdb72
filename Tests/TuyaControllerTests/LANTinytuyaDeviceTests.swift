import LANLink
import Testing
import Timing
import TuyaCore
import TuyaWire
import YoullTestSupport

@testable import TuyaController

/// Our gateway's client side against an implementation no one here wrote. Real parts: a Tuya
/// LAN device whose every frame is made and read by tinytuya's own code
/// (`Tests/Python/tinytuya_device_server.py`, a python child listening on TCP 6668 of a
/// loopback address of its own), and the controller connecting to it over real TCP on the
/// real clock. Nothing waits for time to pass: every wait is on an event, bounded by a
/// deadline that only turns a hang into a failure.
@Suite("Our gateway drives a LAN device made of tinytuya's code", .serialized, .timeLimit(.minutes(3)))
struct LANTinytuyaDeviceTests {
    static let devId = "bf0123456789abcdef01"
    static let key = "0123456789abcdef"
    static let otherKey = "ZYXWVUTSRQPONMLK"

    /// The white bulb, offered over the LAN.
    static let library: ProfileLibrary = {
        var bulb = Fixtures.whiteBulb
        bulb.transports = [.lan]
        return ProfileLibrary(profiles: [bulb])
    }()

    /// A controller with LAN over real TCP (reconnects after 50 ms, so a test needs no waiting
    /// on the real backoff), and its events.
    struct Gateway {
        let controller: TuyaController
        let events: Mailbox<ControllerEvent>
        let id = DeviceID(LANTinytuyaDeviceTests.devId)!

        init() async throws {
            var network = LANNetwork(connector: TCPConnector())
            network.link.policy.backoff = Backoff(initial: .milliseconds(50), maximum: .milliseconds(200))
            controller = TuyaController(bus: InMemoryBus(), library: LANTinytuyaDeviceTests.library, lan: network)
            events = controller.events()
            try await controller.start()
        }

        func pair(_ device: TinyTuyaLANDevice, key: String = LANTinytuyaDeviceTests.key) async throws
            -> PairingOutcome
        {
            try await controller.pairLAN(
                devId: device.devId, localKey: key, ip: device.ip, version: device.version, name: "desk")
        }

        /// The first availability announced for the device that matches `predicate`.
        @discardableResult
        func availability(_ what: String, _ predicate: @escaping @Sendable (ConnectionStatus) -> Bool)
            async throws -> ConnectionStatus
        {
            let id = id
            let event = try await events.first(within: 20, what) { event in
                if case .availabilityChanged(id, let status) = event { return predicate(status) }
                return false
            }
            guard case .availabilityChanged(_, let status) = event else { throw DeadlineExceeded(what: what) }
            return status
        }
    }

    /// Runs `body` with a tinytuya device and a started controller, and always stops both.
    static func withDevice(
        version: String, deviceKey: String = key, _ body: (TinyTuyaLANDevice, Gateway) async throws -> Void
    ) async throws {
        let device = try await TinyTuyaLANDevice.start(
            devId: devId, localKey: deviceKey, version: version, dps: ["1": false, "2": 100, "3": 0])
        defer { device.stop() }
        let gateway = try await Gateway()
        do {
            try await body(device, gateway)
        } catch {
            await gateway.controller.stop()
            throw error
        }
        await gateway.controller.stop()
    }

    @Test(
        "each version pairs, agrees its session key with tinytuya's code, reads the state, and a command is confirmed by the device's report",
        arguments: ["3.1", "3.3", "3.4", "3.5"])
    func pairsReadsAndConfirms(version: String) async throws {
        try await Self.withDevice(version: version) { device, gateway in
            let outcome = try await gateway.pair(device)
            #expect(outcome.pairedProfileID == "white-bulb", "\(version): \(outcome)")
            if version >= "3.4" { try await device.expectLine(containing: "established") }
            try await gateway.availability("online") { $0.availability == .online }

            guard case .light(let before) = await gateway.controller.confirmedState(of: gateway.id) else {
                throw DeadlineExceeded(what: "\(version): the bulb's state read from the device")
            }
            #expect(before.power == false, "\(version)")

            let state = try await gateway.controller.send(
                .light(LightCommand(power: true, brightness: 100)), to: gateway.id)
            guard case .light(let after) = state else { throw DeadlineExceeded(what: "a light state") }
            #expect(after.power == true, "\(version): confirmed by the device's STATUS report")
            #expect(after.brightness == 100, "\(version)")
            let applied = try await device.expectLine(containing: "applied")
            #expect(applied == #"applied {"1":true,"2":255}"#, "\(version): one frame carried both values")
        }
    }

    @Test(
        "pairing with a key the device does not hold is a local key mismatch on each version",
        arguments: ["3.3", "3.4", "3.5"])
    func pairingWithWrongKey(version: String) async throws {
        try await Self.withDevice(version: version, deviceKey: Self.otherKey) { device, gateway in
            let outcome = try await gateway.pair(device)
            #expect(outcome == .wrongKey, "\(version): \(outcome)")
            #expect(outcome.description.contains("local key"))
            #expect(await gateway.controller.devices().isEmpty, "\(version): nothing was paired")
            try await device.expectLine(containing: "rejected")
        }
    }

    @Test(
        "a device whose key changed after pairing is auth_failed, local key mismatch, on each version",
        arguments: ["3.3", "3.4", "3.5"])
    func keyChangedAfterPairing(version: String) async throws {
        try await Self.withDevice(version: version) { device, gateway in
            #expect(try await gateway.pair(device).pairedProfileID == "white-bulb", "\(version)")
            try await gateway.availability("online") { $0.availability == .online }
            // The device is reset and joined to another app: same address, another key.
            device.stop()
            let reset = try await TinyTuyaLANDevice.start(
                devId: Self.devId, localKey: Self.otherKey, version: version, dps: ["1": false], ip: device.ip)
            defer { reset.stop() }
            let failed = try await gateway.availability("auth_failed") { $0.availability == .authFailed }
            #expect(
                failed.hint?.contains("local key mismatch") == true, "\(version): \(String(describing: failed.hint))")
            #expect(failed.hint?.contains(Self.key) == false, "the key never reaches the hint")
        }
    }
}
