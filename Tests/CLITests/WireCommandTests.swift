import Foundation
import Testing

/// Real parts: the built `youll-devices` binary, run as a user would.
@Suite("youll-devices wire")
struct WireCommandTests {
    let key = "0123456789abcdef"

    @Test("an MQTT command encoded by the CLI decodes back to the same body and header")
    func mqttRoundTrip() async throws {
        let encoded = try await CLIRunner.run([
            "wire", "encode", "mqtt", "--key", key, "--seq", "7", "--protocol", "5", "--dps", #"{"20":true,"22":500}"#,
            "--time", "1732200000",
        ])
        #expect(encoded.status == 0)
        let hex = encoded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(hex.hasPrefix("322e32"))  // "2.2"

        let decoded = try await CLIRunner.run(["wire", "decode", "mqtt", "--key", key, "--json", hex])
        #expect(decoded.status == 0)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(decoded.stdout.utf8)) as? [String: Any])
        #expect(object["sequence"] as? Int == 7)
        #expect(object["source"] as? Int == 1)
        #expect(object["protocol"] as? Int == 5)
        let body = try #require(object["body"] as? [String: Any])
        #expect(body["t"] as? Int == 1_732_200_000)
        let dps = try #require((body["data"] as? [String: Any])?["dps"] as? [String: Any])
        #expect(dps["20"] as? Bool == true)
        #expect(dps["22"] as? Int == 500)
    }

    @Test("a wrong local key is reported in one line as a key problem, and the key is never printed")
    func wrongKey() async throws {
        let encoded = try await CLIRunner.run([
            "wire", "encode", "mqtt", "--key", key, "--protocol", "31", "--time", "1",
        ])
        let hex = encoded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let wrong = "fedcba9876543210"
        let decoded = try await CLIRunner.run(["wire", "decode", "mqtt", "--key", wrong, hex])
        #expect(decoded.status == 1)
        #expect(decoded.stdout.isEmpty)
        #expect(decoded.stderr.split(separator: "\n").count == 1)
        #expect(decoded.stderr.contains("check the local key"))
        #expect(!decoded.stderr.contains(wrong))
    }

    @Test("a corrupted MQTT frame is reported as corruption, not as a key problem")
    func corruptedFrame() async throws {
        let encoded = try await CLIRunner.run([
            "wire", "encode", "mqtt", "--key", key, "--protocol", "5", "--dps", #"{"1":false}"#, "--time", "1",
        ])
        var hex = Array(encoded.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        hex[hex.count - 1] = hex[hex.count - 1] == "0" ? "1" : "0"
        let decoded = try await CLIRunner.run(["wire", "decode", "mqtt", "--key", key, String(hex)])
        #expect(decoded.status == 1)
        #expect(decoded.stderr.contains("corrupted"))
        #expect(!decoded.stderr.contains("check the local key"))
    }

    @Test(
        "bad input exits with one line naming what is wrong: status 1 for the data, 64 for an option",
        arguments: [
            (["wire", "decode", "mqtt", "--key", "0123456789abcdef", "322e3zz"], "not a hex digit"),
            (["wire", "decode", "mqtt", "--key", "0123456789abcdef", "322"], "odd number of hex digits"),
            (["wire", "decode", "mqtt", "--key", "0123456789abcdef", "322e32"], "truncated"),
            (["wire", "decode", "mqtt", "322e32"], "--key"),
            (["wire", "decode", "mqtt", "--key", "short", "322e32"], "16 characters"),
            (["wire", "encode", "mqtt", "--key", "0123456789abcdef", "--dps", "{\"0\":true}"], "not a DP id"),
            (["wire", "encode", "mqtt", "--key", "0123456789abcdef", "--dps", "[1"], "--dps"),
            (["wire", "encode", "mqtt", "--key", "0123456789abcdef", "--protocol", "99"], "--protocol"),
            (
                ["wire", "encode", "ble", "--key", "0123456789abcdef", "--srand", "0102", "--dps", "{\"1\":true}"],
                "--srand"
            ),
            (["wire", "decode", "ble", "--key", "0123456789abcdef", "04ff"], "truncated"),
            (
                [
                    "wire", "encode", "ble", "--key", "0123456789abcdef", "--srand", "zz0102030405", "--dps",
                    "{\"1\":true}",
                ],
                "--srand: not a hex digit"
            ),
            (["wire", "decode", "mqtt", "--key", "0123456789abcdef", "zz"], "HEX: not a hex digit"),
        ])
    func badInput(arguments: [String], expected: String) async throws {
        let result = try await CLIRunner.run(arguments)
        let optionMistake = expected.hasPrefix("--") || expected == "16 characters" || expected == "not a DP id"
        #expect(result.status == (optionMistake ? 64 : 1), "stderr: \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.contains(expected), "stderr: \(result.stderr)")
    }

    @Test("BLE packets printed by encode reassemble and decode to the same DPs")
    func blePacketsRoundTrip() async throws {
        let encoded = try await CLIRunner.run([
            "wire", "encode", "ble", "--key", key, "--srand", "010203040506", "--sn", "9", "--cmd", "0x0027",
            "--dps", #"{"1":true,"106":60,"3":"large"}"#, "--packets",
        ])
        #expect(encoded.status == 0)
        let packets = encoded.stdout.split(separator: "\n").map(String.init)
        #expect(packets.count > 1)
        #expect(packets.allSatisfy { $0.count <= 40 })  // ≤ 20 bytes each

        let decoded = try await CLIRunner.run(
            ["wire", "decode", "ble", "--key", key, "--srand", "010203040506", "--json"] + packets)
        #expect(decoded.status == 0, "stderr: \(decoded.stderr)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(decoded.stdout.utf8)) as? [String: Any])
        #expect(object["sn"] as? Int == 9)
        #expect(object["cmd"] as? String == "0x0027")
        #expect(object["flag"] as? Int == 5)
        let dps = try #require(object["dps"] as? [String: Any])
        #expect(dps["1"] as? Bool == true)
        #expect(dps["106"] as? Int == 60)
        #expect(dps["3"] as? String == "large")
    }

    @Test("a BLE frame sealed with a fixed IV matches the published DP106 encoding (TUYA.md §1.8)")
    func bleFixedIV() async throws {
        let encoded = try await CLIRunner.run([
            "wire", "encode", "ble", "--key", key, "--srand", "010203040506", "--sn", "1", "--cmd", "0x0002",
            "--dps", #"{"106":60}"#, "--iv", "000102030405060708090a0b0c0d0e0f",
        ])
        #expect(encoded.status == 0)
        let hex = encoded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(hex.hasPrefix("05000102030405060708090a0b0c0d0e0f"))  // flag 5 ‖ IV
        let decoded = try await CLIRunner.run(["wire", "decode", "ble", "--key", key, "--srand", "010203040506", hex])
        #expect(decoded.stdout.contains("6a02040000003c"))  // v3 KLV: id 106, value, len 4, 60
        #expect(decoded.stdout.contains("dp 106  value 60"))
    }

    @Test("a BLE report that repeats a DP id decodes with --json instead of crashing")
    func bleRepeatedDataPoint() async throws {
        // A v3 report (0x8001) carrying DP1 twice: true, then false.
        let encoded = try await CLIRunner.run([
            "wire", "encode", "ble", "--key", key, "--srand", "010203040506", "--cmd", "0x8001",
            "--data", "01010101 01010100", "--iv", "000102030405060708090a0b0c0d0e0f",
        ])
        #expect(encoded.status == 0)
        let hex = encoded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let decoded = try await CLIRunner.run([
            "wire", "decode", "ble", "--key", key, "--srand", "010203040506", "--json", hex,
        ])
        #expect(decoded.status == 0, "stderr: \(decoded.stderr)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(decoded.stdout.utf8)) as? [String: Any])
        let dps = try #require(object["dps"] as? [String: Any])
        #expect(dps["1"] as? Bool == false)  // the later value, as the device's final state
    }

    @Test("decoding a BLE pair request never prints the local-key prefix it carries")
    func blePairRequestRedacted() async throws {
        // uuid "abcdefghijklmnop" · key prefix "012345" (the whole BLE secret, §1.4) · devId "bf1234" zero-padded.
        let prefixHex = "303132333435"
        let data = "6162636465666768696a6b6c6d6e6f70" + prefixHex + "626631323334" + String(repeating: "00", count: 16)
        let encoded = try await CLIRunner.run([
            "wire", "encode", "ble", "--key", key, "--srand", "010203040506", "--cmd", "0x0001", "--data", data,
        ])
        #expect(encoded.status == 0)
        let hex = encoded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        for format in [[], ["--json"]] {
            let decoded = try await CLIRunner.run(
                ["wire", "decode", "ble", "--key", key, "--srand", "010203040506"] + format + [hex])
            #expect(decoded.status == 0, "stderr: \(decoded.stderr)")
            #expect(!decoded.stdout.contains(prefixHex), "\(decoded.stdout)")
            #expect(!decoded.stdout.contains("012345"), "\(decoded.stdout)")
            #expect(decoded.stdout.contains("abcdefghijklmnop"))
            #expect(decoded.stdout.contains("bf1234"))
        }
    }

    @Test("a session-key BLE frame without --srand says the srand is needed")
    func bleNeedsSrand() async throws {
        let encoded = try await CLIRunner.run([
            "wire", "encode", "ble", "--key", key, "--srand", "010203040506", "--dps", #"{"1":true}"#,
        ])
        let hex = encoded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let decoded = try await CLIRunner.run(["wire", "decode", "ble", "--key", key, hex])
        #expect(decoded.status == 1)
        #expect(decoded.stderr.contains("--srand"))
    }

    @Test("the local key can come from YOULL_LOCAL_KEY instead of the command line")
    func keyFromEnvironment() async throws {
        let encoded = try await CLIRunner.run(
            ["wire", "encode", "mqtt", "--protocol", "31", "--time", "5"], environment: ["YOULL_LOCAL_KEY": key])
        #expect(encoded.status == 0)
        let hex = encoded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let decoded = try await CLIRunner.run(["wire", "decode", "mqtt", hex], environment: ["YOULL_LOCAL_KEY": key])
        #expect(decoded.stdout.contains("31 (query)"))
    }

    @Test("a decoded device-info reply shows its srand but masks the 32 bytes of auth material")
    func deviceInfoMasksAuthMaterial() async throws {
        let auth = String(repeating: "ab", count: 32)
        let reply = "0102" + "0401" + "00" + "00" + "010203040506" + "0100" + auth
        let encoded = try await CLIRunner.run([
            "wire", "encode", "ble", "--key", key, "--flag", "4", "--sn", "1", "--ack-sn", "1", "--cmd", "0x0000",
            "--data", reply,
        ])
        #expect(encoded.status == 0, "stderr: \(encoded.stderr)")
        let hex = encoded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let decoded = try await CLIRunner.run(["wire", "decode", "ble", "--key", key, hex])
        #expect(decoded.status == 0, "stderr: \(decoded.stderr)")
        #expect(decoded.stdout.contains("010203040506"))  // srand row
        #expect(!decoded.stdout.contains("abababab"))
        let json = try await CLIRunner.run(["wire", "decode", "ble", "--key", key, "--json", hex])
        #expect(!json.stdout.contains("abababab"))
    }
}
