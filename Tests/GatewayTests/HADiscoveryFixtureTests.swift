import Foundation
import Gateway
import Testing
import TuyaCore
import TuyaWire
import YoullTestSupport

/// The discovery payload of every shipped profile, compared with a fixture reviewed by hand
/// (`Fixtures/homeassistant/<profile>.json`). A mismatch prints one line per differing
/// field. `YOULL_UPDATE_FIXTURES=1 swift test --filter HADiscoveryFixtureTests` rewrites
/// the fixtures; review the diff before committing it.
@Suite("Home Assistant discovery payloads")
struct HADiscoveryFixtureTests {
    static let fixtures = URL(fileURLWithPath: Repository.path("Tests/GatewayTests/Fixtures/homeassistant"))
    static let library = Repository.shippedProfiles
    static let discovery = HADiscovery(
        settings: .init(prefix: "homeassistant", version: "1.2.3"), topics: BridgeTopics(base: "youll"))
    static let shippedProfiles = [
        "aroma-diffuser-legacy", "aroma-diffuser-modern", "ble-diffuser-dituo", "rgbcct-bulb-v2", "white-bulb",
    ]

    /// Tuya-like device ids, one per profile.
    static let deviceIDs = [
        "aroma-diffuser-legacy": "bf61c2a9d04e7f3b1aq", "aroma-diffuser-modern": "bf82d3b0e15f8a4c2bm",
        "ble-diffuser-dituo": "bf3a7c1e90d2b4ble1", "rgbcct-bulb-v2": "bf47a1c8e20b9d6f3ck",
        "white-bulb": "bf20b8f7c31a6e5d4dw",
    ]

    @Test("every shipped profile has a fixture")
    func everyProfileIsCovered() {
        #expect(Self.library.errors.isEmpty)
        #expect(Self.library.all.map(\.id).sorted() == Self.shippedProfiles)
    }

    @Test("a device's discovery message matches its profile's fixture", arguments: shippedProfiles)
    func deviceMatchesFixture(profileID: String) throws {
        let profile = try #require(Self.library.profile(id: profileID))
        let name = profile.category == .light ? "living-room" : "bedroom-diffuser"
        let device = TuyaDevice(
            id: try #require(DeviceID(Self.deviceIDs[profileID] ?? "")), name: name, profileID: profileID,
            category: profile.category, transport: profile.transports.contains(.ble) ? .ble : .mqtt)
        try check(Self.discovery.message(for: device, profile: profile), fixture: profileID)
    }

    @Test("the gateway's own discovery message matches its fixture")
    func bridgeMatchesFixture() throws {
        try check(Self.discovery.bridgeMessage(), fixture: "bridge")
    }

    @Test("with bridge.auth on, the gateway has no Permit pairing button (Home Assistant cannot sign permit_join)")
    func noPermitButtonWhenSigned() throws {
        var settings = HADiscovery.Settings(prefix: "homeassistant", version: "1.2.3")
        settings.permitJoinButton = false
        let message = HADiscovery(settings: settings, topics: BridgeTopics(base: "youll")).bridgeMessage()
        let components = try #require(message.payload["components"]?.objectValue)
        #expect(components["permit_join"] == nil)
        #expect(components["connection"] != nil)
        #expect(Self.discovery.bridgeMessage().payload["components"]?["permit_join"] != nil)
    }

    @Test("ids come from the device id, so a rename keeps every unique id and the config topic")
    func renameKeepsIDs() throws {
        let profile = try #require(Self.library.profile(id: "aroma-diffuser-modern"))
        let id = DeviceID("bf0123456789")!
        let before = Self.discovery.message(
            for: TuyaDevice(id: id, name: "old", profileID: profile.id, category: .diffuser, transport: .mqtt),
            profile: profile)
        let after = Self.discovery.message(
            for: TuyaDevice(id: id, name: "new", profileID: profile.id, category: .diffuser, transport: .mqtt),
            profile: profile)
        #expect(before.topic == after.topic)
        #expect(before.topic == "homeassistant/device/youll_bf0123456789/config")
        #expect(Self.uniqueIDs(before.payload) == Self.uniqueIDs(after.payload))
        #expect(Self.uniqueIDs(before.payload).count == 14)
        // The topics follow the name.
        let mist = after.payload["components"]?["mist"]
        #expect(mist?["command_topic"] == .string("youll/new/set"))
        #expect(after.payload["availability"]?.arrayValue?.last?["topic"] == .string("youll/new/availability"))
    }

    @Test("the prefix and the base topic are honoured")
    func prefixAndBase() throws {
        let profile = try #require(Self.library.profile(id: "white-bulb"))
        let discovery = HADiscovery(
            settings: .init(prefix: "ha/discovery", version: "0"), topics: BridgeTopics(base: "home/a"))
        let device = TuyaDevice(
            id: DeviceID("bf1")!, name: "lamp", profileID: profile.id, category: .light, transport: .mqtt)
        let message = discovery.message(for: device, profile: profile)
        #expect(message.topic == "ha/discovery/device/home_a_bf1/config")
        #expect(message.payload["device"]?["via_device"] == .string("home_a_bridge"))
        #expect(message.payload["components"]?["light"]?["command_topic"] == .string("home/a/lamp/set"))
        #expect(discovery.bridgeMessage().topic == "ha/discovery/device/home_a_bridge/config")
        #expect(discovery.statusTopic == "ha/discovery/status")
    }

    // MARK: - Fixture comparison

    private func check(_ message: HADiscovery.Message, fixture name: String) throws {
        let actual: JSONValue = .object(["topic": .string(message.topic), "payload": message.payload])
        let file = Self.fixtures.appendingPathComponent(name + ".json")
        if ProcessInfo.processInfo.environment["YOULL_UPDATE_FIXTURES"] == "1" {
            try FileManager.default.createDirectory(at: Self.fixtures, withIntermediateDirectories: true)
            try Data(PrettyJSON.text(actual).utf8).write(to: file)
        }
        let data = try Data(contentsOf: file)
        let expected = try CompactJSON.decode(Array(data))
        let differences = JSONDifference.lines(expected: expected, actual: actual)
        #expect(
            differences.isEmpty,
            "\(name).json differs from the payload built now:\n\(differences.joined(separator: "\n"))")
    }

    static func uniqueIDs(_ payload: JSONValue) -> Set<String> {
        guard let components = payload["components"]?.objectValue else { return [] }
        return Set(components.values.compactMap { $0["unique_id"]?.stringValue })
    }
}

/// One line per field that differs: `payload.components.light.brightness_scale: expected 100, got 255`.
enum JSONDifference {
    static func lines(expected: JSONValue, actual: JSONValue, path: String = "") -> [String] {
        switch (expected, actual) {
        case (.object(let left), .object(let right)):
            return Set(left.keys).union(right.keys).sorted().flatMap { key -> [String] in
                let child = path.isEmpty ? key : path + "." + key
                switch (left[key], right[key]) {
                case (let l?, let r?): return lines(expected: l, actual: r, path: child)
                case (let l?, nil): return ["\(child): expected \(text(l)), missing now"]
                case (nil, let r?): return ["\(child): not in the fixture, now \(text(r))"]
                case (nil, nil): return []
                }
            }
        case (.array(let left), .array(let right)) where left.count == right.count:
            return zip(left, right).enumerated().flatMap { index, pair in
                lines(expected: pair.0, actual: pair.1, path: "\(path)[\(index)]")
            }
        default:
            return expected == actual ? [] : ["\(path): expected \(text(expected)), got \(text(actual))"]
        }
    }

    static func text(_ value: JSONValue) -> String { String(decoding: CompactJSON.encode(value), as: UTF8.self) }
}

/// Sorted keys, two-space indent: fixtures that read well and diff well.
enum PrettyJSON {
    static func text(_ value: JSONValue) -> String {
        var out = ""
        write(value, indent: "", into: &out)
        return out + "\n"
    }

    private static func write(_ value: JSONValue, indent: String, into out: inout String) {
        let inner = indent + "  "
        switch value {
        case .object(let members) where !members.isEmpty:
            out += "{\n"
            for (index, key) in members.keys.sorted().enumerated() {
                out += inner + JSONDifference.text(.string(key)) + ": "
                write(members[key]!, indent: inner, into: &out)
                out += index == members.count - 1 ? "\n" : ",\n"
            }
            out += indent + "}"
        case .array(let elements) where !elements.isEmpty:
            out += "[\n"
            for (index, element) in elements.enumerated() {
                out += inner
                write(element, indent: inner, into: &out)
                out += index == elements.count - 1 ? "\n" : ",\n"
            }
            out += indent + "]"
        default:
            out += JSONDifference.text(value)
        }
    }
}
