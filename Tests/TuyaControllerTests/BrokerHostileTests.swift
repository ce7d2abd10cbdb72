import DeviceSimulator
import Foundation
import MQTTLink
import Testing
import TuyaController
import TuyaCore
import TuyaWire

// Real parts: LocalBroker mosquitto, SimulatorFleet devices, TuyaController over MQTTDeviceBus, and a hostile MQTTClient.
@Suite("A hostile publisher on the broker")
struct BrokerHostileTests {
    static let otherKey = try! AESKey(localKey: "ZYXWVUTSRQPONMLK")

    /// Publishes every payload on `topic` in order (QoS 1, so the broker keeps the order).
    static func publish(_ payloads: [[UInt8]], on topic: String, via url: String) async throws {
        let client = try MQTTClient(configuration: MQTTConfiguration(url: url))
        do {
            try await client.connect()
            for payload in payloads { try await client.publish(topic: topic, payload: payload, qos: .atLeastOnce) }
        } catch {
            await client.close()
            throw error
        }
        await client.close()
    }

    /// Frames the controller cannot open with the device's key, as many as it takes to
    /// believe the key is wrong: its availability becomes auth_failed, which tells the test
    /// every frame published before them was handled.
    static func sentinel(devId: String) throws -> [[UInt8]] {
        let body = TuyaEnvelope.report(devId: devId, dps: ["20": .bool(false)], t: 1).encode(timestamp: 1)
        let frame = try MQTTFrame.encode(body: body, key: otherKey, sequence: 9, source: MQTTFrame.deviceSource)
        return Array(repeating: frame, count: TuyaController.Configuration().keyMismatchesForAuthFailure)
    }

    @Test("garbage, corrupt and foreign frames on a paired device's topic change nothing and commands still confirm")
    func garbageOnPairedTopic() async throws {
        try await withBrokerRig { rig in
            let identity = rig.identity(0)
            let device = try await rig.pair(identity)
            try await rig.controller.send(.light(LightCommand(power: true, brightness: 30)), to: device.id)
            let before = try #require(await rig.controller.confirmedState(of: device.id))
            let events = rig.controller.events()

            let key = try AESKey(localKey: identity.localKey)
            let report = TuyaEnvelope.report(
                devId: identity.devId, dps: ["20": .bool(false), "22": .integer(10)], t: 1)
            let good = try MQTTFrame.encode(
                body: report.encode(timestamp: 1), key: key, sequence: 7, source: MQTTFrame.deviceSource)
            var badCRC = good
            badCRC[4] ^= 0xff
            var flippedCipher = good
            flippedCipher[flippedCipher.count - 1] ^= 0x01
            var generator = SystemRandomNumberGenerator()
            let huge = (0..<1_000_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
            func sealed(_ text: String) throws -> [UInt8] {
                try MQTTFrame.encode(body: Array(text.utf8), key: key, sequence: 8, source: MQTTFrame.deviceSource)
            }
            let otherDevice = TuyaEnvelope.report(devId: "bfsomeoneelse000000000", dps: ["20": .bool(false)], t: 1)
            let hostile: [[UInt8]] =
                [
                    [],
                    Array("hello".utf8),
                    Array(good.prefix(3)),
                    Array(good.prefix(14)),
                    Array(good.dropLast(5)),
                    Array(good.dropLast(16)) + [0xff],
                    badCRC,
                    flippedCipher,
                    Array(#"{"protocol":4,"data":{"dps":{"20":false}}}"#.utf8),
                    Array("2.2".utf8) + huge,
                    huge,
                    try sealed(#"{"hello":"world"}"#),
                    try sealed(#"{"protocol":4,"data":"not dps"}"#),
                    try sealed(#"{"protocol":4,"data":{"dps":[1,2,3]}}"#),
                    try sealed(#"{"protocol":5,"data":{"dps":{"20":false}}}"#),
                    try MQTTFrame.encode(
                        body: otherDevice.encode(timestamp: 1), key: key, sequence: 9, source: MQTTFrame.deviceSource),
                ] + (try Self.sentinel(devId: identity.devId))
            try await Self.publish(hostile, on: "smart/device/out/\(identity.devId)", via: rig.broker.url)

            let seen = try await events.collect(untilAvailability: .authFailed, of: device.id)
            guard case .availabilityChanged(_, let failed)? = seen.last else { return }
            #expect(failed.hint == "local key mismatch")
            #expect(seen.count == 1, "unexpected events \(seen)")
            #expect(await rig.controller.confirmedState(of: device.id) == before)
            #expect(await rig.simulated(identity, 20) == .bool(true))

            // The real device is still heard: a command confirms and it is online again.
            let state = try BrokerRig.light(
                await rig.controller.send(.light(LightCommand(brightness: 80)), to: device.id))
            #expect(state.brightness == 80)
            #expect(state.power == true)
            _ = try await events.availability(.online, of: device.id)
        }
    }

    @Test("garbage from an unknown devId while the pairing window is open only lists a candidate")
    func garbageFromUnknownDevice() async throws {
        try await withBrokerRig { rig in
            let identity = rig.identity(0)
            let device = try await rig.pair(identity)
            await rig.controller.openPairingWindow()
            let events = rig.controller.events()
            let unknown = "bfunknown0000000000000"
            try await Self.publish(
                [Array("garbage".utf8), [], Array(repeating: 0x41, count: 70_000)], on: "smart/device/out/\(unknown)",
                via: rig.broker.url)
            try await Self.publish(
                try Self.sentinel(devId: identity.devId), on: "smart/device/out/\(identity.devId)",
                via: rig.broker.url)
            let seen = try await events.collect(untilAvailability: .authFailed, of: device.id)
            // The unknown device is announced once (not once per frame); the garbage neither
            // paired it nor disturbed the paired device (its own online and state events from
            // pairing may still be arriving).
            let announced = seen.compactMap {
                if case .candidateFound(let candidate) = $0 { candidate.id.rawValue } else { nil }
            }
            #expect(announced == [unknown])
            let unexpected = seen.filter { event in
                switch event {
                case .candidateFound, .stateChanged(device.id, _): false
                case .availabilityChanged(device.id, let status): status.availability == .offline
                default: true
                }
            }
            #expect(unexpected.isEmpty, "unexpected events \(unexpected)")

            let candidates = await rig.controller.pairingCandidates()
            #expect(candidates.map(\.id.rawValue) == [unknown])
            #expect(candidates.first?.frames == 3)
            #expect(await rig.controller.devices().map(\.id) == [device.id])
            #expect(await rig.controller.status(of: DeviceID(unknown)!) == nil)
        }
    }
}
