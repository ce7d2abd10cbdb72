import Foundation
import Testing

/// Real parts: the built `youll-devices` binary, run as a user would.
@Suite("youll-devices wire … lan")
struct LANWireCommandTests {
    let key = "0123456789abcdef"
    let sessionKey = "000102030405060708090a0b0c0d0e0f"

    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("a 3.3 CONTROL encoded by the CLI decodes back to the same DPs, seen as sent by the client")
    func control33RoundTrip() async throws {
        let encoded = try await CLIRunner.run([
            "wire", "encode", "lan", "--protocol", "3.3", "--key", key, "--dev-id", "bf01", "--seq", "7",
            "--dps", #"{"20":true,"22":500}"#, "--time", "1700000000",
        ])
        #expect(encoded.status == 0, "stderr: \(encoded.stderr)")
        let hex = encoded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(hex.hasPrefix("000055aa00000007000000070"))
        let decoded = try await CLIRunner.run([
            "wire", "decode", "lan", "--protocol", "3.3", "--key", key, "--json", hex,
        ])
        #expect(decoded.status == 0, "stderr: \(decoded.stderr)")
        let object = try json(decoded.stdout)
        #expect(object["from"] as? String == "client")
        #expect(object["sequence"] as? Int == 7)
        #expect(object["cmd_name"] as? String == "CONTROL")
        let dps = try #require(object["dps"] as? [String: Any])
        #expect(dps["20"] as? Bool == true)
        #expect(dps["22"] as? Int == 500)
    }

    @Test("a 3.5 device answer sealed with a session key decodes with that key, retcode and dps shown")
    func answer35() async throws {
        let encoded = try await CLIRunner.run([
            "wire", "encode", "lan", "--protocol", "3.5", "--key", key, "--session-key", sessionKey, "--cmd",
            "DP_QUERY_NEW", "--retcode", "0", "--body", #"{"protocol":4,"t":1,"data":{"dps":{"1":false}}}"#,
            "--nonce", "0102030405060708090a0b0c",
        ])
        #expect(encoded.status == 0, "stderr: \(encoded.stderr)")
        let hex = encoded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(hex.hasPrefix("00006699"))
        let decoded = try await CLIRunner.run([
            "wire", "decode", "lan", "--protocol", "3.5", "--key", key, "--session-key", sessionKey, "--json", hex,
        ])
        #expect(decoded.status == 0, "stderr: \(decoded.stderr)")
        let object = try json(decoded.stdout)
        #expect(object["from"] as? String == "device")
        #expect(object["retcode"] as? Int == 0)
        #expect((object["dps"] as? [String: Any])?["1"] as? Bool == false)

        let text = try await CLIRunner.run([
            "wire", "decode", "lan", "--protocol", "3.5", "--key", key, "--session-key", sessionKey, hex,
        ])
        #expect(text.stdout.contains("6699, GCM tag ok"))
        #expect(text.stdout.contains("DP_QUERY_NEW (16)"))
    }

    @Test("a 3.4 handshake frame uses the local key and needs no session key")
    func handshakeFrame() async throws {
        let encoded = try await CLIRunner.run([
            "wire", "encode", "lan", "--protocol", "3.4", "--key", key, "--cmd", "SESS_KEY_NEG_START", "--payload",
            "000102030405060708090a0b0c0d0e0f",
        ])
        #expect(encoded.status == 0, "stderr: \(encoded.stderr)")
        let hex = encoded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let decoded = try await CLIRunner.run([
            "wire", "decode", "lan", "--protocol", "3.4", "--key", key, "--json", hex,
        ])
        #expect(decoded.status == 0, "stderr: \(decoded.stderr)")
        let object = try json(decoded.stdout)
        #expect(object["body"] as? String == "000102030405060708090a0b0c0d0e0f")
        #expect(object["cmd"] as? Int == 3)
    }

    @Test("a 3.4 data frame without --session-key says which key is missing")
    func sessionKeyRequired() async throws {
        let encoded = try await CLIRunner.run([
            "wire", "encode", "lan", "--protocol", "3.4", "--key", key, "--session-key", sessionKey, "--dps",
            #"{"1":true}"#,
        ])
        let hex = encoded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let decoded = try await CLIRunner.run(["wire", "decode", "lan", "--protocol", "3.4", "--key", key, hex])
        #expect(decoded.status == 1)
        #expect(decoded.stderr.split(separator: "\n").count == 1)
        #expect(decoded.stderr.contains("--session-key"))
    }

    @Test("a wrong local key on a 3.3 frame is one line about the key, and the key is never printed")
    func wrongKey() async throws {
        let encoded = try await CLIRunner.run([
            "wire", "encode", "lan", "--protocol", "3.3", "--key", key, "--cmd", "STATUS", "--retcode", "0",
            "--body", #"{"devId":"bf01","dps":{"1":true}}"#,
        ])
        let hex = encoded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let wrong = "fedcba9876543210"
        let decoded = try await CLIRunner.run(["wire", "decode", "lan", "--protocol", "3.3", "--key", wrong, hex])
        #expect(decoded.status == 1)
        #expect(decoded.stdout.isEmpty)
        #expect(decoded.stderr.split(separator: "\n").count == 1)
        #expect(decoded.stderr.contains("check the local key"), "stderr: \(decoded.stderr)")
        #expect(!decoded.stderr.contains(wrong))
    }

    @Test(
        "hostile or bad input exits with one line naming what is wrong: status 1 for the frame, 64 for an option",
        arguments: [
            (["--protocol", "3.3", "00zz"], "not a hex digit"),
            (["--protocol", "3.3", "000055aa00000001"], "truncated"),
            (["--protocol", "3.3", "deadbeefdeadbeefdeadbeefdeadbeefdeadbeef"], "does not start"),
            (["--protocol", "3.3", "000055aa0000000100000007ffffffff00000000"], "truncated"),
            (["--protocol", "3.9", "000055aa"], "--protocol"),
            (["000055aa"], "--protocol"),
            (["--protocol", "3.4", "--session-key", "0102", "000055aa000000010000000700000000"], "--session-key"),
            (
                [
                    "--protocol", "3.5", "--session-key", "000102030405060708090a0b0c0d0e0f",
                    "00006699" + String(repeating: "00", count: 60),
                ], "malformed"
            ),
            (["--protocol", "3.3", "--from", "nobody", "000055aa"], "--from"),
        ] as [([String], String)])
    func badDecodeInput(arguments: [String], expected: String) async throws {
        let result = try await CLIRunner.run(["wire", "decode", "lan", "--key", key] + arguments)
        #expect(result.status == (expected.hasPrefix("--") ? 64 : 1), "stderr: \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.contains(expected), "stderr: \(result.stderr)")
    }

    @Test(
        "bad encode options exit with status 64 (a usage mistake) and one line naming the option",
        arguments: [
            (["--protocol", "3.3", "--dps", #"{"1":true}"#], "--dev-id"),
            (["--protocol", "3.3", "--dev-id", "x", "--dps", #"{"0":true}"#], "not a DP id"),
            (["--protocol", "3.3", "--cmd", "NOPE", "--body", "{}"], "--cmd"),
            (["--protocol", "3.3", "--cmd", "DP_QUERY", "--body", "{"], "--body"),
            (
                [
                    "--protocol", "3.5", "--session-key", "000102030405060708090a0b0c0d0e0f", "--cmd", "16", "--nonce",
                    "01",
                ], "--nonce"
            ),
            (["--protocol", "3.3", "--cmd", "10", "--body", "{}", "--payload", "00"], "give one of them"),
        ] as [([String], String)])
    func badEncodeInput(arguments: [String], expected: String) async throws {
        let result = try await CLIRunner.run(["wire", "encode", "lan", "--key", key] + arguments)
        #expect(result.status == 64)
        #expect(result.stderr.split(separator: "\n").count == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.contains(expected), "stderr: \(result.stderr)")
    }
}
