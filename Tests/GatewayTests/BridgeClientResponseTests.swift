import Gateway
import Testing
import TuyaCore

/// Pure: how a client reads what arrives on `<base>/bridge/response/<verb>`.
@Suite("Bridge client: reading responses")
struct BridgeClientResponseTests {
    let mine = JSONValue.string("cli-abc-1")

    func read(_ text: String) -> BridgeResponse {
        BridgeResponse.read(Array(text.utf8), transaction: mine)
    }

    @Test("an ok response for our transaction gives its data")
    func okResponse() {
        #expect(
            read(#"{"status":"ok","data":{"id":"bf01","friendly_name":"lamp"},"transaction":"cli-abc-1"}"#)
                == .ok(.object(["id": .string("bf01"), "friendly_name": .string("lamp")])))
    }

    @Test("an ok response without data gives an empty object, not a failure")
    func okWithoutData() {
        #expect(read(#"{"status":"ok","transaction":"cli-abc-1"}"#) == .ok(.object([:])))
    }

    @Test("an error response carries the daemon's words")
    func errorResponse() {
        #expect(
            read(
                #"{"status":"error","error":"device/add: local_key: must be 16 characters","transaction":"cli-abc-1"}"#)
                == .failed("device/add: local_key: must be 16 characters"))
    }

    @Test("an error response without a reason still fails, saying none was given")
    func errorWithoutReason() {
        #expect(
            read(#"{"status":"error","transaction":"cli-abc-1"}"#)
                == .failed("the daemon refused the request without saying why"))
        #expect(
            read(#"{"status":"error","error":"","transaction":"cli-abc-1"}"#)
                == .failed("the daemon refused the request without saying why"))
    }

    @Test("responses to other transactions, or to requests without one, are not ours")
    func otherTransactions() {
        #expect(read(#"{"status":"ok","data":{},"transaction":"cli-xyz-1"}"#) == .otherTransaction)
        #expect(read(#"{"status":"ok","data":{},"transaction":1}"#) == .otherTransaction)
        #expect(read(#"{"status":"error","error":"payload: not JSON"}"#) == .otherTransaction)
    }

    @Test("garbage is malformed with the reason, never a crash")
    func garbage() {
        guard case .malformed(let notJSON) = read("\u{1B}[2Jhello") else {
            Issue.record("garbage was not reported as malformed")
            return
        }
        #expect(notJSON.hasPrefix("not JSON"))
        #expect(read("[1,2,3]") == .malformed("expected a JSON object, got an array"))
        #expect(read(#""ok""#) == .malformed("expected a JSON object, got a string"))
        #expect(BridgeResponse.read([0xFF, 0xFE, 0x00], transaction: mine) != .otherTransaction)
        #expect(BridgeResponse.read([], transaction: mine) != .otherTransaction)
    }

    @Test("our transaction with a missing or unknown status is malformed")
    func badStatus() {
        #expect(read(#"{"data":{},"transaction":"cli-abc-1"}"#) == .malformed(#"no "status" member"#))
        #expect(
            read(#"{"status":"maybe","transaction":"cli-abc-1"}"#)
                == .malformed(#""status" is "maybe", expected "ok" or "error""#))
        #expect(
            read(#"{"status":true,"transaction":"cli-abc-1"}"#)
                == .malformed(#""status" is true, expected "ok" or "error""#))
    }

    @Test("terminal escapes and newlines in an error cannot reach the terminal raw, and huge errors are cut")
    func hostileError() {
        guard
            case .failed(let message) = read(
                #"{"status":"error","error":"bad\u001b[31m\nnext","transaction":"cli-abc-1"}"#)
        else {
            Issue.record("not read as a failure")
            return
        }
        #expect(!message.contains("\u{1B}"))
        #expect(!message.contains("\n"))
        #expect(message.contains("bad"))
        let long = String(repeating: "x", count: 10_000)
        guard case .failed(let cut) = read(#"{"status":"error","error":"\#(long)","transaction":"cli-abc-1"}"#) else {
            Issue.record("not read as a failure")
            return
        }
        #expect(cut.count <= BridgeText.maximumLength + 1)
    }

    @Test("a payload above CompactJSON's 64 KiB limit (a large bridge/devices) is still read")
    func largePayload() throws {
        let entries = (0..<1500).map { index in
            #"{"id":"bf\#(String(format: "%018d", index))","friendly_name":"lamp \#(index)","transport":"mqtt","capabilities":["brightness","color_temp"]}"#
        }
        let text = "[" + entries.joined(separator: ",") + "]"
        #expect(text.utf8.count > 65_536)
        let devices = try BridgeDevice.list(from: BridgeJSON.decode(Array(text.utf8)), topic: "youll/bridge/devices")
        #expect(devices.count == 1500)
        #expect(devices[1499].friendlyName == "lamp 1499")
        #expect(devices[0].capabilities == ["brightness", "color_temp"])
    }
}
