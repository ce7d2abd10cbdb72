import Foundation
import Gateway
import Testing
import TuyaCore
import YoullTestSupport

@Suite("bridge/devices entries")
struct BridgeDevicePayloadTests {
    let library = Repository.shippedProfiles

    private func capability(_ json: JSONValue, _ name: String) -> [String: JSONValue]? {
        guard case .array(let list)? = json.objectValue?["capabilities"] else { return nil }
        return list.compactMap(\.objectValue).first { $0["name"] == .string(name) }
    }

    @Test("a light lists its kelvin range from the profile, brightness in percent and its scenes")
    func light() throws {
        let profile = try #require(library.profile(id: "rgbcct-bulb-v2"))
        let device = TuyaDevice(
            id: DeviceID("bf1")!, name: "desk", profileID: profile.id, category: .light, transport: .mqtt)
        let json = BridgeDevicePayload.json(device, profile: profile)
        #expect(json.objectValue?["friendly_name"] == .string("desk"))
        #expect(capability(json, "color_temp")?["min"] == .integer(2700))
        #expect(capability(json, "color_temp")?["max"] == .integer(6500))
        #expect(capability(json, "brightness")?["unit"] == .string("%"))
        #expect(
            capability(json, "scene")?["values"]
                == .array([.string("night"), .string("read"), .string("working"), .string("leisure")]))
    }

    @Test("a diffuser lists mist modes, its timer and its faults as read-only")
    func diffuser() throws {
        let profile = try #require(library.profile(id: "aroma-diffuser-legacy"))
        let device = TuyaDevice(
            id: DeviceID("bf2")!, name: "aroma", profileID: profile.id, category: .diffuser, transport: .mqtt)
        let json = BridgeDevicePayload.json(device, profile: profile)
        #expect(capability(json, "mist_mode")?["values"] == .array([.string("small"), .string("large")]))
        #expect(capability(json, "faults")?["access"] == .string("r"))
        #expect(capability(json, "timer") != nil)
    }

    @Test("a device whose profile is missing is still listed, with the problem named")
    func missingProfile() {
        let device = TuyaDevice(
            id: DeviceID("bf3")!, name: "gone", profileID: "deleted-profile", category: .light, transport: .mqtt)
        let json = BridgeDevicePayload.json(device, profile: nil)
        #expect(json.objectValue?["problem"] == .string("profile deleted-profile is not loaded"))
        #expect(json.objectValue?["capabilities"] == .array([]))
    }
}
