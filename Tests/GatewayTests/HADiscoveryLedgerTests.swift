import Foundation
import Testing
import TuyaCore
import TuyaWire

@testable import Gateway

/// Pure: what the reconciler publishes and clears; the ledger file on a real temp directory;
/// the `/set` and state fields Home Assistant's JSON-schema light uses.
@Suite("Home Assistant discovery ledger and reconciler")
struct HADiscoveryLedgerTests {
    static func message(_ id: String, _ name: String) -> HADiscovery.Message {
        HADiscovery.Message(
            topic: "homeassistant/device/youll_\(id)/config", payload: .object(["name": .string(name)]))
    }

    @Test("the first plan publishes everything and clears what an earlier run recorded and no device needs")
    func firstPlan() {
        var reconciler = DiscoveryReconciler(ledger: [
            "homeassistant/device/youll_gone/config", "homeassistant/device/youll_a/config",
        ])
        let plan = reconciler.plan([Self.message("a", "lamp"), Self.message("b", "fan")], republish: true)
        #expect(
            plan.publish.map(\.topic) == ["homeassistant/device/youll_a/config", "homeassistant/device/youll_b/config"])
        #expect(plan.clear == ["homeassistant/device/youll_gone/config"])
        // Recorded before publishing: the union, so a crash now still knows both.
        #expect(
            plan.ledgerBeforePublishing == [
                "homeassistant/device/youll_gone/config", "homeassistant/device/youll_a/config",
                "homeassistant/device/youll_b/config",
            ])
        #expect(reconciler.ledger == ["homeassistant/device/youll_a/config", "homeassistant/device/youll_b/config"])
    }

    @Test("an update publishes only what changed (a rename), and a removal clears only that device")
    func updates() {
        var reconciler = DiscoveryReconciler(ledger: [])
        _ = reconciler.plan([Self.message("a", "lamp"), Self.message("b", "fan")], republish: true)
        let renamed = reconciler.plan([Self.message("a", "desk-lamp"), Self.message("b", "fan")], republish: false)
        #expect(renamed.publish.map(\.topic) == ["homeassistant/device/youll_a/config"])
        #expect(renamed.clear.isEmpty && renamed.ledgerBeforePublishing == nil)
        let removed = reconciler.plan([Self.message("a", "desk-lamp")], republish: false)
        #expect(removed.publish.isEmpty)
        #expect(removed.clear == ["homeassistant/device/youll_b/config"])
        // Home Assistant's birth: everything again, nothing cleared twice.
        let birth = reconciler.plan([Self.message("a", "desk-lamp")], republish: true)
        #expect(birth.publish.map(\.topic) == ["homeassistant/device/youll_a/config"])
        #expect(birth.clear.isEmpty)
    }

    @Test(
        "a paired device whose profile did not load keeps its config (neither cleared nor republished) until it is removed"
    )
    func keptWithoutProfile() {
        let lamp = "homeassistant/device/youll_a/config"
        var reconciler = DiscoveryReconciler(ledger: [lamp, "homeassistant/device/youll_b/config"])
        let start = reconciler.plan(
            [Self.message("b", "fan")], keeping: [lamp, "homeassistant/device/youll_never/config"], republish: true)
        #expect(start.clear.isEmpty, "clearing would make Home Assistant delete the lamp's entities")
        #expect(start.publish.map(\.topic) == ["homeassistant/device/youll_b/config"])
        #expect(
            reconciler.ledger == [lamp, "homeassistant/device/youll_b/config"],
            "a topic never published is not recorded")
        // The profile is fixed: the config is published again; or the device is removed: cleared.
        let fixed = reconciler.plan([Self.message("a", "lamp"), Self.message("b", "fan")], republish: false)
        #expect(fixed.publish.map(\.topic) == [lamp])
        let removed = reconciler.plan([Self.message("b", "fan")], republish: false)
        #expect(removed.clear == [lamp])
    }

    @Test("the ledger file round-trips, is 0600, and refuses anything but discovery config topics")
    func ledgerFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "youll-ledger-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledger = DiscoveryLedger(file: directory.appendingPathComponent(DiscoveryLedger.fileName))
        #expect(try ledger.load().isEmpty)
        try ledger.save(["homeassistant/device/youll_a/config", "ha/device/youll_b/config"])
        #expect(try ledger.load() == ["homeassistant/device/youll_a/config", "ha/device/youll_b/config"])
        let mode = try FileManager.default.attributesOfItem(atPath: ledger.file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        for (text, reason) in [
            ("not json", "not JSON"),
            (#"["a/config"]"#, "expected"),
            (#"{"topics":["youll/bridge/state"]}"#, "topics[0]"),
            (#"{"topics":["homeassistant/#/config"]}"#, "topics[0]"),
            (#"{"topics":[42]}"#, "topics[0]"),
        ] {
            try Data(text.utf8).write(to: ledger.file)
            #expect(throws: DiscoveryLedgerError.self) { try ledger.load() }
            do {
                _ = try ledger.load()
            } catch {
                #expect(error.description.contains(reason), "\(text): \(error)")
                #expect(error.description.contains(ledger.file.path))
            }
        }
    }

    @Test("Home Assistant's light JSON is a valid /set: effect names the scene, fractional hue and saturation round")
    func homeAssistantLightCommand() throws {
        let command = try DeviceSetPayload.parse(
            Array(#"{"state":"ON","brightness":40,"color":{"h":29.6,"s":80.0},"effect":"night"}"#.utf8),
            category: .light)
        #expect(
            command
                == .light(
                    LightCommand(
                        power: true, brightness: 40, colour: HSVColour(hue: 30, saturation: 80, value: 100),
                        scene: "night")))
        #expect(throws: BridgePayloadError.self) {
            try DeviceSetPayload.parse(Array(#"{"color":{"h":360.7,"s":10}}"#.utf8), category: .light)
        }
    }

    @Test("a light's state carries h/s and effect, which Home Assistant's JSON-schema light reads")
    func homeAssistantLightState() {
        let state = DeviceStatePayload.json(
            .light(
                LightState(
                    power: true, mode: "colour", colour: HSVColour(hue: 30, saturation: 80, value: 90), scene: "read")))
        #expect(state["color"]?["h"] == .integer(30))
        #expect(state["color"]?["s"] == .integer(80))
        #expect(state["color"]?["hue"] == .integer(30))
        // In colour mode no scene runs, whatever the scene DP last held.
        #expect(state["effect"] == .null)
        #expect(state["color_mode"] == .string("hs"))
        let inScene = DeviceStatePayload.json(.light(LightState(power: true, mode: "scene", scene: "read")))
        #expect(inScene["effect"] == .string("read"))
    }
}
