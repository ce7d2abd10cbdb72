import Gateway
import Testing
import TuyaCore

@Suite("Bridge requests: parsing untrusted payloads")
struct BridgeRequestTests {
    private func parse(_ verb: String, _ json: String) throws(BridgePayloadError) -> BridgeRequest {
        try BridgeRequest.parse(verb: verb, payload: Array(json.utf8))
    }

    private func field(_ verb: String, _ json: String) -> String? {
        do {
            _ = try parse(verb, json)
            return nil
        } catch {
            return error.field
        }
    }

    @Test("every verb parses its documented payload")
    func documentedPayloads() throws {
        #expect(
            try parse("permit_join", #"{"value":true,"time":60}"#)
                == .permitJoin(open: true, seconds: 60, transport: nil))
        #expect(
            try parse("permit_join", #"{"value":true,"transport":"ble"}"#)
                == .permitJoin(open: true, seconds: nil, transport: .ble))
        #expect(try parse("permit_join", #"{"value":false}"#) == .permitJoin(open: false, seconds: nil, transport: nil))
        guard
            case .deviceAdd(let add) = try parse(
                "device/add",
                #"{"id":"bf123","local_key":"0123456789abcdef","name":"desk","profile":"rgbcct-bulb-v2","transport":"mqtt","transaction":7}"#
            )
        else {
            Issue.record("not device/add")
            return
        }
        #expect(add.id.rawValue == "bf123")
        #expect(add.localKey.text == "0123456789abcdef")
        #expect(add.name?.text == "desk")
        #expect(add.profileID == "rgbcct-bulb-v2")
        #expect(try parse("device/remove", #"{"id":"desk"}"#) == .deviceRemove(device: "desk"))
        #expect(
            try parse("device/rename", #"{"from":"desk","to":"study lamp"}"#)
                == .deviceRename(from: "desk", to: try DeviceName(text: "study lamp")))
        #expect(try parse("device/refresh", #"{"id":"bf123"}"#) == .deviceRefresh(device: "bf123"))
        #expect(try parse("health_check", "") == .healthCheck)
        #expect(try parse("backup", "{}") == .backup)
    }

    @Test("a BLE device/add carries its address and uuid, validated")
    func bleDeviceAdd() throws {
        guard
            case .deviceAdd(let add) = try parse(
                "device/add",
                #"{"id":"blediff1","local_key":"0123456789abcdef","transport":"ble","address":"dc:23:4d:12:34:56","uuid":"tuya1234abcd5678"}"#
            )
        else {
            Issue.record("not device/add")
            return
        }
        #expect(add.transport == .ble)
        #expect(add.ble?.address == "DC:23:4D:12:34:56")
        #expect(add.ble?.uuid == "tuya1234abcd5678")
        #expect(
            field("device/add", #"{"id":"b1","local_key":"0123456789abcdef","transport":"ble","uuid":"u1"}"#)
                == "address")
        #expect(
            field("device/add", #"{"id":"b1","local_key":"0123456789abcdef","transport":"ble","address":"DC:23"}"#)
                == "uuid")
        #expect(
            field(
                "device/add",
                #"{"id":"b1","local_key":"0123456789abcdef","transport":"ble","address":"DC:23","uuid":"u1"}"#)
                == "address")
        #expect(field("device/add", #"{"id":"b1","local_key":"0123456789abcdef","transport":"zigbee"}"#) == "transport")
        #expect(
            field("device/add", #"{"id":"b1","local_key":"0123456789abcdef","address":"DC:23:4D:12:34:56"}"#)
                == "address")
    }

    @Test("a bad request names the field at fault")
    func fieldErrors() {
        #expect(field("permit_join", "{}") == "value")
        #expect(field("permit_join", #"{"value":true,"time":0}"#) == "time")
        #expect(field("permit_join", #"{"value":true,"time":3601}"#) == "time")
        #expect(field("device/add", #"{"id":"bf1"}"#) == "local_key")
        #expect(field("device/add", #"{"id":"bf 1","local_key":"0123456789abcdef"}"#) == "id")
        #expect(field("device/add", #"{"id":"bf1","local_key":"0123456789abcde\u00e9"}"#) == "local_key")
        #expect(field("device/add", #"{"id":"bf1","local_key":"0123456789abcdef","name":""}"#) == "name")
        #expect(field("device/add", #"{"id":"bf1","local_key":"0123456789abcdef","extra":1}"#) == "extra")
        #expect(field("device/rename", #"{"from":"a","to":" padded"}"#) == "to")
        #expect(field("device/rename", #"{"from":"a","to":"Bridge"}"#) == "to")
        #expect(field("device/rename", #"{"from":"a","to":"tab\there"}"#) == "to")
        #expect(field("device/rekey", #"{"id":"a","local_key":true}"#) == "local_key")
        #expect(field("mystery", "{}") == "verb")
        #expect(field("backup", "[]") == "payload")
        #expect(field("backup", "{") == "payload")
        #expect(field("backup", String(repeating: "[", count: 5000)) == "payload")
    }

    @Test("the transaction is read even from a request that is refused, and only when it is a plain value")
    func transactions() {
        #expect(BridgeRequest.transaction(in: Array(#"{"transaction":"x1","time":-1}"#.utf8)) == .string("x1"))
        #expect(BridgeRequest.transaction(in: Array(#"{"transaction":42}"#.utf8)) == .integer(42))
        #expect(BridgeRequest.transaction(in: Array(#"{"transaction":{"a":1}}"#.utf8)) == nil)
        #expect(BridgeRequest.transaction(in: Array("not json".utf8)) == nil)
        let long = String(repeating: "t", count: 200)
        #expect(BridgeRequest.transaction(in: Array(#"{"transaction":"\#(long)"}"#.utf8)) == nil)
        // A transaction the answer could not carry is refused, so the caller hears why.
        #expect(field("health_check", #"{"transaction":{"a":1}}"#) == "transaction")
        #expect(field("health_check", #"{"transaction":[1,2]}"#) == "transaction")
        #expect(field("health_check", #"{"transaction":"\#(long)"}"#) == "transaction")
        #expect(field("health_check", #"{"transaction":"x1"}"#) == nil)
        #expect(field("health_check", #"{"transaction":null}"#) == nil)
    }

    @Test("a local key never shows in a description, a dump or an error")
    func keyRedaction() throws {
        let request = try parse("device/rekey", #"{"id":"a","local_key":"s3cr3tk3ys3cr3t!"}"#)
        #expect(!"\(request)".contains("s3cr3t"))
        #expect(!String(reflecting: request).contains("s3cr3t"))
        do {
            _ = try parse("device/add", #"{"id":"a","local_key":"s3cr3tk3ys3cr3t"}"#)
        } catch {
            #expect(!error.description.contains("s3cr3t"))
        }
    }

    @Test("only short lower-case verbs are answered on their own response topic")
    func answerableVerbs() {
        #expect(BridgeRequest.isAnswerable(verb: "device/add"))
        #expect(BridgeRequest.isAnswerable(verb: "made_up"))
        #expect(!BridgeRequest.isAnswerable(verb: ""))
        #expect(!BridgeRequest.isAnswerable(verb: "Device/Add"))
        #expect(!BridgeRequest.isAnswerable(verb: String(repeating: "a", count: 65)))
    }

    @Test("topics are classified into requests, commands and reads; anything else is ignored")
    func topics() {
        let topics = BridgeTopics(base: "home/youll")
        #expect(topics.classify("home/youll/bridge/request/device/add") == .request(verb: "device/add"))
        #expect(topics.classify("home/youll/desk/set") == .set(device: "desk"))
        #expect(topics.classify("home/youll/desk/get") == .get(device: "desk"))
        #expect(topics.classify("home/youll/bridge/set") == nil)
        #expect(topics.classify("home/youll/desk/availability") == nil)
        #expect(topics.classify("home/youll//set") == nil)
        #expect(topics.classify("other/desk/set") == nil)
        #expect(topics.availability("desk") == "home/youll/desk/availability")
    }
}
