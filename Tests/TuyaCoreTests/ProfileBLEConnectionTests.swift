import Foundation
import Testing

@testable import TuyaCore

/// The `ble: { connection: … }` key: how the gateway holds a BLE product's link.
@Suite("Profile BLE connection policy")
struct ProfileBLEConnectionTests {
    typealias F = ProfileFixture

    static let bleBase = F.replacing("transports: [mqtt]", with: "transports: [ble]")

    @Test("a BLE profile without the key keeps its link open")
    func defaultsToKeep() throws {
        let profile = try ProfileLoader.parse(yaml: Self.bleBase, source: "fixture")
        #expect(profile.bleConnection == .keep)
    }

    @Test("connection: on_demand and connection: keep are read")
    func readsPolicy() throws {
        let onDemand = try ProfileLoader.parse(
            yaml: Self.bleBase + "ble: { connection: on_demand }\n", source: "fixture")
        #expect(onDemand.bleConnection == .onDemand)
        let keep = try ProfileLoader.parse(yaml: Self.bleBase + "ble:\n  connection: keep\n", source: "fixture")
        #expect(keep.bleConnection == .keep)
    }

    @Test("an unknown policy is rejected and the two policies are listed")
    func unknownPolicy() {
        let error = F.expectRejection(
            Self.bleBase + "ble: { connection: sometimes }\n", keyPath: "ble.connection",
            reason: "unknown BLE connection policy 'sometimes'")
        #expect(error?.reason.contains("on_demand") == true)
    }

    @Test("an unknown key under ble is rejected")
    func unknownKey() {
        F.expectRejection(
            Self.bleBase + "ble: { idle_seconds: 30 }\n", keyPath: "ble.idle_seconds", reason: "unknown key 'idle_seconds'")
    }

    @Test("BLE settings on a product reached only over MQTT are rejected")
    func needsBLETransport() {
        F.expectRejection(
            F.base + "ble: { connection: on_demand }\n", keyPath: "ble", reason: "need 'ble' in transports")
    }

    @Test("the shipped Dituo BLE diffuser keeps its link open")
    func shippedDiffuser() throws {
        let url = F.devicesDirectory.appendingPathComponent("ble-diffuser-dituo.yaml")
        let profile = try ProfileLoader.parse(yaml: String(contentsOf: url, encoding: .utf8), source: url.path)
        #expect(profile.bleConnection == .keep)
    }
}
