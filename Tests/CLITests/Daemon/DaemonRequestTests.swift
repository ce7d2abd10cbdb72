import DeviceSimulator
import Foundation
import LocalBroker
import Testing
import TuyaCore
import TuyaWire

#if canImport(Glibc)
    import Glibc
#endif

/// The bridge's request topics under hostile and everyday use, against the real daemon.
@Suite("youll-devices serve, requests", .serialized)
struct DaemonRequestTests {
    @Test(
        "hostile payloads on every request topic are each answered with an error naming the field, and the daemon carries on"
    )
    func hostileRequests() async throws {
        let rig = try await DaemonRig()
        try await rig.startDaemon()
        let fleet = try await rig.fleet(seed: 21)
        defer { fleet.stop() }
        let identity = fleet.identities[0]
        let added = try await rig.request(
            "device/add",
            ["id": .string(identity.devId), "local_key": .string(identity.localKey), "name": .string("bulb")])
        #expect(added["status"]?.string == "ok")

        for (verb, payload, expected) in Self.hostileCases {
            let response = try await rig.request(verb, payload.objectValue ?? [:])
            #expect(response["status"]?.string == "error", "\(verb) \(payload)")
            let message = response["error"]?.string ?? ""
            #expect(message.contains(expected), "\(verb) \(payload): \(message)")
            #expect(message.hasPrefix(verb + ":"), "the error names the request: \(message)")
        }

        let mark = await rig.observer.mark
        try await Self.publishGarbage(rig)
        // Every request was answered with an error (8 verbs × 7 payloads) …
        for verb in ["permit_join", "device/add", "health_check", "backup"] {
            _ = try await rig.observer.wait(for: "youll/bridge/response/\(verb)", after: mark) {
                $0.json?["status"]?.string == "error"
            }
        }
        // … the bad /set payloads became command_failed events …
        let failed = try await rig.observer.wait(for: "youll/bridge/event", after: mark) {
            $0.json?["type"]?.string == "command_failed"
        }
        #expect(failed.json?["data"]?["error"]?.string?.contains("payload") == true)
        // … and the daemon still answers and still drives the bulb.
        let health = try await rig.request("health_check", [:])
        #expect(health["status"]?.string == "ok")
        #expect(health["data"]?["healthy"] == .bool(true))
        let setMark = await rig.observer.mark
        try await rig.publish("youll/bulb/set", Array(#"{"state":"ON","brightness":55}"#.utf8))
        _ = try await rig.observer.wait(for: "youll/bulb", after: setMark) { $0.json?["brightness"] == .integer(55) }
        let devices = try await rig.observer.wait(for: "youll/bridge/devices") { $0.json?.arrayValue?.count == 1 }
        #expect(devices.json?.arrayValue?.first?["friendly_name"]?.string == "bulb")
        await rig.shutdown()
    }

    /// Each request: (verb, payload, text the error must contain).
    static let hostileCases: [(String, JSONValue, String)] = [
        ("permit_join", .object(["value": .string("maybe")]), "value"),
        ("permit_join", .object(["value": .bool(true), "time": .integer(-5)]), "time"),
        ("permit_join", .object(["value": .bool(true), "colour": .string("red")]), "colour"),
        ("device/add", .object(["local_key": .string("0123456789abcdef")]), "id"),
        ("device/add", .object(["id": .string("../../etc"), "local_key": .string("0123456789abcdef")]), "id"),
        ("device/add", .object(["id": .string("bfabc"), "local_key": .string("short")]), "local_key"),
        (
            "device/add",
            .object(["id": .string("bfabc"), "local_key": .string("0123456789abcdef"), "name": .string("a/b")]),
            "name"
        ),
        (
            "device/add",
            .object(["id": .string("bfabc"), "local_key": .string("0123456789abcdef"), "name": .string("bulb")]),
            "already used"
        ),
        (
            "device/add",
            .object([
                "id": .string("bfabc"), "local_key": .string("0123456789abcdef"), "profile": .string("toaster"),
            ]), "profile"
        ),
        (
            "device/add",
            .object([
                "id": .string("bfabc"), "local_key": .string("0123456789abcdef"), "transport": .string("zigbee"),
            ]), "transport"
        ),
        ("device/remove", .object([:]), "id"),
        ("device/remove", .object(["id": .string("nobody")]), "no device"),
        ("device/remove", .object(["id": .array([])]), "id"),
        ("device/rename", .object(["from": .string("bulb"), "to": .string("bridge")]), "to"),
        ("device/rename", .object(["from": .string("bulb"), "to": .string("a+b")]), "to"),
        (
            "device/rename", .object(["from": .string("bulb"), "to": .string(String(repeating: "x", count: 65))]),
            "to"
        ),
        ("device/rename", .object(["from": .string("ghost"), "to": .string("fine")]), "from"),
        ("device/rekey", .object(["id": .string("bulb"), "local_key": .integer(5)]), "local_key"),
        ("device/rekey", .object(["id": .string("bulb")]), "local_key"),
        ("device/refresh", .object(["id": .null]), "id"),
        ("health_check", .object(["deep": .bool(true)]), "deep"),
        ("backup", .object(["to": .string("/etc/passwd")]), "to"),
        ("no_such_verb", .object([:]), "unknown request"),
    ]

    /// Publishes raw garbage (not JSON, not an object, deep nesting, a megabyte, invalid
    /// UTF-8) on every request topic and on the device's /set and /get.
    static func publishGarbage(_ rig: DaemonRig) async throws {
        let garbage: [[UInt8]] = [
            Array("{".utf8), Array("[1,2,3]".utf8), Array("\"just a string\"".utf8),
            Array(String(repeating: "[", count: 10_000).utf8), [UInt8](repeating: 0x41, count: 1_000_000),
            [0xff, 0xfe, 0x00, 0x7b], Array(#"{"transaction":{"nested":[1,2]}}"#.utf8),
        ]
        for verb in [
            "permit_join", "device/add", "device/remove", "device/rename", "device/rekey", "device/refresh",
            "health_check", "backup",
        ] {
            for payload in garbage { try await rig.publish("youll/bridge/request/\(verb)", payload) }
        }
        for payload in garbage {
            try await rig.publish("youll/bulb/set", payload)
            try await rig.publish("youll/bulb/get", payload)
            try await rig.publish("youll/nobody/set", payload)
        }
        try await rig.publish("youll/bridge/request/" + String(repeating: "v", count: 300), Array("{}".utf8))
    }

    @Test(
        "rename moves the device's topics and clears the old retained ones; remove clears them and forgets the device")
    func renameAndRemove() async throws {
        let rig = try await DaemonRig()
        try await rig.startDaemon()
        let fleet = try await rig.fleet(seed: 22)
        defer { fleet.stop() }
        let identity = fleet.identities[0]
        let added = try await rig.request(
            "device/add",
            ["id": .string(identity.devId), "local_key": .string(identity.localKey), "name": .string("old")])
        #expect(added["status"]?.string == "ok")
        _ = try await rig.observer.wait(for: "youll/old") { !$0.payload.isEmpty }

        let mark = await rig.observer.mark
        let renamed = try await rig.request("device/rename", ["from": .string("old"), "to": .string("new")])
        #expect(renamed["status"]?.string == "ok")
        #expect(renamed["data"]?["to"]?.string == "new")
        _ = try await rig.observer.wait(for: "youll/old", after: mark) { $0.payload.isEmpty }
        _ = try await rig.observer.wait(for: "youll/old/availability", after: mark) { $0.payload.isEmpty }
        _ = try await rig.observer.wait(for: "youll/new", after: mark) { !$0.payload.isEmpty }
        _ = try await rig.observer.wait(for: "youll/bridge/event", after: mark) {
            $0.json?["type"]?.string == "device_renamed"
        }
        // Commands follow the new name; the id works too.
        let setMark = await rig.observer.mark
        try await rig.publish("youll/\(identity.devId)/set", Array(#"{"state":"ON","brightness":30}"#.utf8))
        _ = try await rig.observer.wait(for: "youll/new", after: setMark) { $0.json?["brightness"] == .integer(30) }

        let refresh = try await rig.request("device/refresh", ["id": .string("new")])
        #expect(refresh["status"]?.string == "ok")
        let backup = try await rig.request("backup", [:])
        let path = try #require(backup["data"]?["path"]?.string)
        #expect(path.hasPrefix(rig.stateDirectory))
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(!"\(backup)".contains(identity.localKey))

        let removeMark = await rig.observer.mark
        let removed = try await rig.request("device/remove", ["id": .string("new")])
        #expect(removed["status"]?.string == "ok")
        _ = try await rig.observer.wait(for: "youll/new", after: removeMark) { $0.payload.isEmpty }
        _ = try await rig.observer.wait(for: "youll/bridge/devices", after: removeMark) {
            $0.json?.arrayValue?.isEmpty == true
        }
        _ = try await rig.observer.wait(for: "youll/bridge/event", after: removeMark) {
            $0.json?["type"]?.string == "device_removed"
        }
        // Removed means forgotten: a restart does not bring it back.
        #expect(await rig.stopDaemon() == 0)
        let restartMark = await rig.observer.mark
        try await rig.startDaemon()
        let devices = try await rig.observer.wait(for: "youll/bridge/devices", after: restartMark)
        #expect(devices.json?.arrayValue?.isEmpty == true)
        await rig.shutdown()
    }

    @Test("rekey: a wrong key is refused and the device keeps working on its old one; the right key is accepted")
    func rekey() async throws {
        let rig = try await DaemonRig(extraConfig: "")
        try await rig.startDaemon()
        let fleet = try await rig.fleet(seed: 23)
        defer { fleet.stop() }
        let identity = fleet.identities[0]
        let added = try await rig.request(
            "device/add",
            ["id": .string(identity.devId), "local_key": .string(identity.localKey), "name": .string("den")])
        #expect(added["status"]?.string == "ok")

        let wrong = try await rig.request(
            "device/rekey", ["id": .string("den"), "local_key": .string("0000000000000000")])
        #expect(wrong["status"]?.string == "error")
        #expect(wrong["error"]?.string?.contains("old one stays in use") == true)
        #expect(!"\(wrong)".contains("0000000000000000"))

        let refresh = try await rig.request("device/refresh", ["id": .string("den")])
        #expect(refresh["status"]?.string == "ok", "\(refresh)")
        let mark = await rig.observer.mark
        try await rig.publish("youll/den/set", Array(#"{"state":"ON","brightness":35}"#.utf8))
        _ = try await rig.observer.wait(for: "youll/den", after: mark) { $0.json?["brightness"] == .integer(35) }

        let right = try await rig.request(
            "device/rekey", ["id": .string("den"), "local_key": .string(identity.localKey)])
        #expect(right["status"]?.string == "ok", "\(right)")
        let setMark = await rig.observer.mark
        try await rig.publish("youll/den/set", Array(#"{"brightness":65}"#.utf8))
        _ = try await rig.observer.wait(for: "youll/den", after: setMark) { $0.json?["brightness"] == .integer(65) }
        await rig.shutdown()
    }

    @Test("a second daemon on the same state directory refuses to start and names the running one")
    func secondDaemonRefused() async throws {
        let rig = try await DaemonRig()
        try await rig.startDaemon()
        let second = try await CLIRunner.run(["serve", "--config", rig.configPath])
        #expect(second.status == 1)
        #expect(second.stderr.contains("state.lock"), "\(second.stderr)")
        await rig.shutdown()
    }

    @Test("a bad configuration is refused at start with the key path and the reason; nothing is created")
    func configurationErrors() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "youll-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.appendingPathComponent("state").path
        let cases: [(String, String)] = [
            ("state_directory: \(state)\nmqtt:\n  url: mqtt://127.0.0.1:1883\n  passwrd: x\n", "mqtt.passwrd"),
            ("state_directory: \(state)\nmqtt:\n  url: http://example.com\n", "mqtt.url"),
            ("state_directory: \(state)\ndevices:\n  query_interval: soon\n", "devices.query_interval"),
            ("state_directory: \(state)\nbase_topic: 'a/#'\n", "base_topic"),
            ("state_directory: [1, 2]\n", "state_directory"),
        ]
        for (yaml, keyPath) in cases {
            let path = directory.appendingPathComponent("config.yaml").path
            try yaml.write(toFile: path, atomically: true, encoding: .utf8)
            let result = try await CLIRunner.run(["serve", "--config", path])
            #expect(result.status == 2, "\(yaml)")
            #expect(result.stderr.contains(keyPath), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "one clear line: \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: state))
        }
        let missing = try await CLIRunner.run(["serve", "--config", directory.appendingPathComponent("nope.yaml").path])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("no such configuration file"))
    }
}
