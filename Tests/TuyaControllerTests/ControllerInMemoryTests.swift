import DeviceSimulator
import Testing
import YoullTestSupport
import TuyaCore
import TuyaWire
import Timing

@testable import TuyaController

// Starts no real parts: the controller runs over InMemoryBus with FakeTuyaDevice and a ManualClock.
@Suite("TuyaController over an in-memory bus")
struct ControllerInMemoryTests {
    static let devId = "bf00aa11bb22cc33dd"
    static let key = "0123456789abcdef"
    let id = DeviceID(devId)!

    struct Rig {
        let bus = InMemoryBus()
        let clock = ManualClock()
        let device: FakeTuyaDevice
        let controller: TuyaController
        let events: Mailbox<ControllerEvent>

        init(
            device: FakeTuyaDevice = FakeTuyaDevice(
                id: devId, key: key, dps: ["1": .bool(true), "2": .integer(255), "3": .integer(0)]),
            library: ProfileLibrary = Fixtures.library,
            configure: (inout TuyaController.Configuration) -> Void = { _ in }
        ) async throws {
            self.device = device
            bus.attach(device)
            var configuration = TuyaController.Configuration()
            configure(&configuration)
            controller = TuyaController(
                bus: bus, library: library, configuration: configuration, clock: clock,
                unixTime: { 1_700_000_000 }, sequenceSeed: { 0x1234 })
            events = controller.events()
            try await controller.start()
        }

        func pair(key: String = key) async throws -> PairingOutcome {
            try await controller.pair(devId: devId, localKey: key, name: "desk")
        }

        /// Waits until `count` more frames have been published.
        func published(_ count: Int) async throws {
            let stream = bus.publications
            _ = try await withDeadline(10, "\(count) publications") {
                var seen = 0
                for await _ in stream {
                    seen += 1
                    if seen == count { return true }
                }
                return false
            }
        }
    }

    @Test("pairing with the right key answers paired with the matching profile")
    func pairingSucceeds() async throws {
        let rig = try await Rig()
        let outcome = try await rig.pair()
        #expect(outcome.pairedProfileID == "white-bulb")
        #expect(await rig.controller.devices().map(\.name) == ["desk"])
        _ = try await rig.events.first("devicePaired") { if case .devicePaired = $0 { true } else { false } }
        #expect(try await rig.pair() == .alreadyPaired)
        await rig.controller.stop()
    }

    @Test("a device that encrypts with another key gives wrongKey")
    func wrongKey() async throws {
        let rig = try await Rig(
            device: FakeTuyaDevice(
                id: Self.devId, key: Self.key, reportKey: "fedcba9876543210", dps: ["1": .bool(true)]))
        #expect(try await rig.pair() == .wrongKey)
        #expect(await rig.controller.devices().isEmpty)
        await rig.controller.stop()
    }

    @Test("a device that never answers gives noAnswer once the pairing deadline passes")
    func noAnswer() async throws {
        let rig = try await Rig()
        rig.device.setMuted(true)
        async let outcome = rig.pair()
        await rig.clock.waitForSleepers(1)
        rig.clock.advance(by: .seconds(15))
        #expect(try await outcome == .noAnswer)
        await rig.controller.stop()
    }

    @Test("DPs no profile declares give unknownProduct listing them")
    func unknownProduct() async throws {
        let rig = try await Rig(
            device: FakeTuyaDevice(id: Self.devId, key: Self.key, dps: ["1": .bool(true), "101": .integer(3)]))
        #expect(try await rig.pair() == .unknownProduct(dpsSeen: [Fixtures.dp(1), Fixtures.dp(101)]))
        await rig.controller.stop()
    }

    @Test("a malformed id, a short key or an unknown profile is refused before anything is sent")
    func pairingInputErrors() async throws {
        let rig = try await Rig()
        await #expect(throws: PairingError.invalidDeviceID("bad/id")) {
            try await rig.controller.pair(devId: "bad/id", localKey: Self.key)
        }
        let error = await #expect(throws: PairingError.self) {
            try await rig.controller.pair(devId: Self.devId, localKey: "short-secret")
        }
        #expect(error.map { !"\($0)".contains("short-secret") } == true)
        await #expect(throws: PairingError.unknownProfile("nope")) {
            try await rig.controller.pair(devId: Self.devId, localKey: Self.key, profileID: "nope")
        }
        #expect(rig.bus.publishedCount == 0)
        await rig.controller.stop()
    }

    @Test("a command writes every field in one frame and returns the state the device confirms")
    func commandConfirmed() async throws {
        let rig = try await Rig()
        _ = try await rig.pair()
        let state = try await rig.controller.send(.light(LightCommand(power: false, brightness: 0)), to: id)
        guard case .light(let light) = state else {
            Issue.record("expected a light state")
            return
        }
        #expect(light.power == false && light.brightness == 0)
        #expect(rig.device.dps["1"] == .bool(false) && rig.device.dps["2"] == .integer(25))
        #expect(rig.device.commandsSeen == 1)
        #expect(await rig.controller.confirmedState(of: id) == state)
        await rig.controller.stop()
    }

    @Test("a command outside the profile is invalidCommand with the mapper's message")
    func invalidCommand() async throws {
        let rig = try await Rig()
        _ = try await rig.pair()
        let error = await #expect(throws: ControllerError.self) {
            try await rig.controller.send(.light(LightCommand(brightness: 101)), to: id)
        }
        guard case .invalidCommand(_, let reason) = error else {
            Issue.record("expected invalidCommand, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("out of range"))
        await #expect(throws: ControllerError.unknownDevice("nobody")) {
            try await rig.controller.send(.light(LightCommand(power: true)), to: DeviceID("nobody")!)
        }
        await rig.controller.stop()
    }

    @Test("an unconfirmed command throws confirmationTimeout and stays pending")
    func confirmationTimeout() async throws {
        let rig = try await Rig()
        _ = try await rig.pair()
        _ = try await rig.events.first("online") {
            if case .availabilityChanged(_, let s) = $0 { s.availability == .online } else { false }
        }
        rig.device.setMuted(true)
        let controller = rig.controller
        let id = id
        let result = Task { try await controller.send(.light(LightCommand(power: false)), to: id) }
        try await rig.published(1)
        rig.clock.advance(by: .seconds(5))
        await #expect(throws: ControllerError.confirmationTimeout(device: id, pending: [Fixtures.dp(1)])) {
            try await result.value
        }
        guard case .light(let pending) = await controller.pendingState(of: id),
            case .light(let confirmed) = await controller.confirmedState(of: id)
        else { return }
        #expect(pending.power == false && confirmed.power == true)
        await rig.controller.stop()
    }

    @Test("garbage on the device's topic cannot crash the controller or change its state")
    func hostilePublisher() async throws {
        let rig = try await Rig()
        _ = try await rig.pair()
        let before = await rig.controller.confirmedState(of: id)
        let topic = "smart/device/out/\(Self.devId)"
        var generator = SeededGenerator(seed: 42)
        let otherKey = try AESKey(localKey: "zzzzzzzzzzzzzzzz")
        let rightKey = try AESKey(localKey: Self.key)
        var hostile: [[UInt8]] = [[], Array("2.2".utf8), Array(repeating: 0xff, count: 70_000)]
        for length in [1, 15, 16, 31, 47, 200] {
            hostile.append((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
        var header = Array("2.2".utf8) + [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1] + Array(repeating: UInt8(7), count: 32)
        header[3] = 0x12  // wrong CRC
        hostile.append(header)
        let otherDevice = TuyaEnvelope.report(devId: "someone-else", dps: ["1": .bool(false)], t: nil)
        hostile.append(
            try MQTTFrame.encode(body: otherDevice.encode(timestamp: 1), key: rightKey, sequence: 1, source: 1))
        let wrongTypes = TuyaEnvelope.report(devId: nil, dps: ["1": .string("x"), "2": .integer(1 << 40)], t: nil)
        hostile.append(
            try MQTTFrame.encode(body: wrongTypes.encode(timestamp: 1), key: rightKey, sequence: 2, source: 1))
        hostile.append(
            try MQTTFrame.encode(body: Array("{\"protocol\":4}".utf8), key: rightKey, sequence: 3, source: 1))
        hostile.append(
            try MQTTFrame.encode(body: otherDevice.encode(timestamp: 1), key: otherKey, sequence: 4, source: 1))
        for payload in hostile { rig.bus.inject(topic: topic, payload: payload) }
        rig.bus.inject(topic: "smart/device/out/../../x", payload: [1, 2, 3])
        // The controller handles messages in order: once this command is confirmed, all the garbage was seen.
        _ = try await rig.controller.send(.light(LightCommand(power: true)), to: id)
        #expect(await rig.controller.confirmedState(of: id) == before)
        await rig.controller.stop()
    }

    @Test("replayed reports, and reports stamped in 1970 or years ahead, change no state")
    func replayedReportsChangeNothing() async throws {
        let rig = try await Rig()
        _ = try await rig.pair()
        // A report recorded now and played back after the device has spoken again.
        let recorded = rig.device.report(["1": .bool(false)])
        _ = try await rig.controller.send(.light(LightCommand(power: true)), to: id)
        let before = try #require(await rig.controller.confirmedState(of: id))
        let key = try AESKey(localKey: Self.key)
        var frames = [recorded]
        for (time, sequence) in [(Int64(1), UInt32(5_000)), (Int64(1_700_000_000 + 3 * 365 * 86_400), 5_001)] {
            let body = TuyaEnvelope.report(devId: Self.devId, dps: ["1": .bool(false)], t: nil).encode(timestamp: time)
            frames.append(try MQTTFrame.encode(body: body, key: key, sequence: sequence, source: 1))
        }
        for frame in frames { rig.bus.inject(topic: "smart/device/out/\(Self.devId)", payload: frame) }
        // Messages are handled in order: once this command is confirmed, the replays were seen.
        _ = try await rig.controller.send(.light(LightCommand(power: true)), to: id)
        #expect(try BrokerRig.light(before).power == true)
        #expect(await rig.controller.confirmedState(of: id) == before)
        await rig.controller.stop()
    }

    @Test(
        "a quiet device is asked again sooner after each missed answer, is offline 30 s after the first, and online when it answers"
    )
    func availability() async throws {
        let rig = try await Rig { configuration in
            configuration.queryInterval = .seconds(60)
        }
        _ = try await rig.pair()
        _ = try await rig.events.first("online") {
            if case .availabilityChanged(_, let s) = $0 { s.availability == .online } else { false }
        }
        rig.device.setMuted(true)
        let offline = Task {
            try await rig.events.first("offline") {
                if case .availabilityChanged(_, let s) = $0 { s.availability == .offline } else { false }
            }
        }
        // The healthy minute's query, then retries 5 s and 10 s apart (backing off).
        for step in [60, 5, 10] {
            rig.clock.advance(by: .seconds(step))
            try await rig.published(1)
        }
        #expect(await rig.controller.status(of: id)?.availability == .online)
        rig.clock.advance(by: .seconds(15))
        _ = try await offline.value
        #expect(await rig.controller.status(of: id)?.hint == "no answer for 30 s")
        // A command to it fails at once (no confirmation wait on the clock), saying since when.
        do {
            _ = try await rig.controller.send(.light(LightCommand(power: true)), to: id)
            Issue.record("a command to an offline device succeeded")
        } catch let error as ControllerError {
            guard case .offline(_, let lastSeen, _) = error else {
                Issue.record("expected offline, got \(error)")
                return
            }
            #expect(lastSeen != nil)
            #expect(error.description.contains("is offline since"))
        }
        #expect(await rig.controller.status(of: id)?.availability == .offline)
        rig.device.setMuted(false)
        rig.clock.advance(by: .seconds(30))
        _ = try await rig.events.first("online again") {
            if case .availabilityChanged(_, let s) = $0 { s.availability == .online } else { false }
        }
        await rig.controller.stop()
    }

    @Test("after a broker outage only the DPs that differ from the desired state are re-applied")
    func reconciliation() async throws {
        let rig = try await Rig()
        _ = try await rig.pair()
        _ = try await rig.controller.send(.light(LightCommand(brightness: 50)), to: id)
        let desiredBright = rig.device.dps["2"]
        rig.bus.drop()
        _ = try await rig.events.first("offline") {
            if case .availabilityChanged(_, let s) = $0 { s.availability == .offline } else { false }
        }
        rig.device.setLocally(["2": .integer(255)])  // power cycle back to full brightness
        let commandsBefore = rig.device.commandsSeen
        // A command issued while the broker is down is held and applied after the reconnect.
        let controller = rig.controller
        let id = id
        let heldCommand = Task { try await controller.send(.light(LightCommand(power: false)), to: id) }
        try await rig.bus.connect()
        _ = try await heldCommand.value
        _ = try await rig.events.first("brightness restored") { event in
            if case .stateChanged(_, .light(let light)) = event {
                light.brightness == 50 && light.power == false
            } else {
                false
            }
        }
        #expect(rig.device.dps["2"] == desiredBright && rig.device.dps["1"] == .bool(false))
        #expect(rig.device.commandsSeen - commandsBefore <= 2)
        await rig.controller.stop()
    }
}
