import Gateway
import Testing
import TuyaCore
import TuyaWire

/// Pure: the retained `bridge/devices` list and naming a device by friendly name or id.
@Suite("Bridge client: device list and names")
struct BridgeClientDeviceTests {
    let payload = #"""
        [{"id":"bf0000000000000001","friendly_name":"desk lamp","transport":"mqtt","category":"light","profile":"generic-light",
          "capabilities":[{"name":"brightness","type":"numeric"},"state",{"type":"nameless"}]},
         {"id":"bf0000000000000002","friendly_name":"bf0000000000000001","transport":"mqtt","category":"diffuser"},
         {"id":"bf0000000000000003","transport":"mqtt"},
         {"friendly_name":"no id"}, 42, "text"]
        """#

    func devices() throws -> [BridgeDevice] {
        try BridgeDevice.list(from: CompactJSON.decode(Array(payload.utf8)), topic: "youll/bridge/devices")
    }

    @Test("entries without an id are skipped, a missing friendly name is the id")
    func list() throws {
        let list = try devices()
        #expect(list.map(\.id) == ["bf0000000000000001", "bf0000000000000002", "bf0000000000000003"])
        #expect(list[0].friendlyName == "desk lamp")
        #expect(list[0].category == "light")
        #expect(list[0].profile == "generic-light")
        #expect(list[0].capabilities == ["brightness", "state"])
        #expect(list[2].friendlyName == "bf0000000000000003")
    }

    @Test("a device is found by its friendly name, then by its id")
    func resolve() throws {
        let list = try devices()
        #expect(try BridgeDevice.resolve("desk lamp", in: list).id == "bf0000000000000001")
        #expect(try BridgeDevice.resolve("bf0000000000000003", in: list).friendlyName == "bf0000000000000003")
        // A friendly name that equals another device's id wins, as the daemon resolves it.
        #expect(try BridgeDevice.resolve("bf0000000000000001", in: list).id == "bf0000000000000002")
    }

    @Test("an unknown name lists the paired devices; with none paired it says how to pair")
    func unknown() throws {
        let list = try devices()
        #expect(throws: BridgeClientError.self) { try BridgeDevice.resolve("Desk Lamp", in: list) }
        do {
            _ = try BridgeDevice.resolve("kitchen", in: list)
        } catch {
            #expect(error.description.contains(#"no device named "kitchen""#))
            #expect(error.description.contains("desk lamp"))
        }
        do {
            _ = try BridgeDevice.resolve("kitchen", in: [])
        } catch {
            #expect(error.description.contains("pair one with `youll-devices pair mqtt`"))
        }
    }

    @Test("a name that only looks like a paired one (a Cyrillic а in desk lаmp) asks whether that one was meant")
    func lookalike() throws {
        let list = try devices()
        do {
            _ = try BridgeDevice.resolve("desk l\u{0430}mp", in: list)
            Issue.record("expected an error")
        } catch {
            #expect(
                error.description.contains(#"did you mean "desk lamp"? the name typed has Cyrillic or Greek letters"#),
                "\(error)")
        }
        do {
            _ = try BridgeDevice.resolve("desk lump", in: list)
            Issue.record("expected an error")
        } catch {
            #expect(!error.description.contains("did you mean"), "a different name is just unknown: \(error)")
        }
    }

    @Test("a bridge/devices payload that is not an array is an error naming the topic")
    func notAList() {
        #expect(
            throws: BridgeClientError.malformedPayload(
                topic: "youll/bridge/devices", reason: "expected an array of devices, got an object")
        ) {
            try BridgeDevice.list(from: .object([:]), topic: "youll/bridge/devices")
        }
    }

    @Test("topic filters match as MQTT does")
    func topicFilters() {
        #expect(TopicFilter.matches("youll/+", "youll/lamp"))
        #expect(!TopicFilter.matches("youll/+", "youll/lamp/availability"))
        #expect(TopicFilter.matches("youll/+/availability", "youll/lamp/availability"))
        #expect(!TopicFilter.matches("youll/+/availability", "youll/bridge/event"))
        #expect(TopicFilter.matches("youll/#", "youll"))
        #expect(TopicFilter.matches("youll/#", "youll/a/b/c"))
        #expect(!TopicFilter.matches("youll/bridge/state", "youll/bridge/states"))
    }

    @Test("availability is read from {\"state\":…} and from the bare word")
    func availability() {
        #expect(
            BridgeMessage(topic: "t", payload: Array(#"{"state":"online"}"#.utf8), retained: true).availability
                == "online")
        #expect(BridgeMessage(topic: "t", payload: Array("offline".utf8), retained: true).availability == "offline")
        #expect(BridgeMessage(topic: "t", payload: [0xFF, 0x00], retained: true).availability == nil)
    }
}
