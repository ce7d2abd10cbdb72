import DeviceSimulator
import Foundation
import LocalBroker
import Testing
import TuyaCore
import TuyaWire
import YoullTestSupport

/// Runs `Tests/Python/tinytuya_client.py` and returns the JSON object it prints last.
private func tinytuya(_ arguments: [String]) async throws -> [String: Any] {
    let python = try await PythonTools.python()
    let script = PythonTools.script("tinytuya_client.py")
    // A scratch directory as the working directory, so no devices.json nearby is read.
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tinytuya-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    // swift-subprocess waits for the child without holding a cooperative thread.
    let output = try await ChildProcess.run(
        "/bin/sh",
        [
            "-c", "cd \"$0\" || exit 2; python=$1; shift; exec \"$python\" \"$@\"", directory.path, python, script,
        ] + arguments)
    #expect(output.status == 0, "tinytuya_client.py: \(output.stderr.suffix(2_000))")
    let line = output.stdout.split(separator: "\n").last.map(String.init) ?? ""
    return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(output.stdout)")
}

/// Real parts: tinytuya 1.20.0 (python child process) as the client of our simulated LAN
/// devices on 127.x.y.z:6668, and tinytuya's scanner listening for their broadcasts on
/// ports this test picks (the scanner's port settings, so 6666/6667/7000 stay free).
@Suite("Simulated LAN devices driven by tinytuya")
struct LANTinyTuyaDeviceTests {
    @Test("tinytuya's Device reads and sets our simulated devices on 3.3, 3.4 and 3.5")
    func statusAndSetValue() async throws {
        try await LANFleetFixture.withFleet(try LANFleetFixture.options()) { fleet in
            for entry in fleet.identities {
                let result = try await tinytuya([
                    "device", entry.devId, entry.ip, "6668", entry.localKey, entry.version.rawValue, "22", "730",
                ])
                let before = try #require(result["before"] as? [String: Any], "\(entry.version): \(result)")
                let beforeDPs = try #require(before["dps"] as? [String: Any], "\(entry.version): \(before)")
                #expect(beforeDPs["20"] as? Bool == false, "\(entry.version)")
                let written = try #require(result["set"] as? [String: Any], "\(entry.version): \(result)")
                #expect((written["dps"] as? [String: Any])?["22"] as? Int == 730, "\(entry.version): \(written)")
                let after = try #require(result["after"] as? [String: Any])
                #expect((after["dps"] as? [String: Any])?["22"] as? Int == 730, "\(entry.version): \(after)")
                #expect(await fleet.state(of: entry.devId)?[dp(22)] == .value(730))
                #expect(await fleet.lanStatistics(of: entry.devId)?.connectionsAccepted == 1)
            }
        }
    }

    @Test("tinytuya's scanner finds every simulated device by its broadcast, with its address and version")
    func scannerFindsBroadcasts() async throws {
        let plain = try LocalBroker.freeLoopbackPort()
        let encrypted = try LocalBroker.freeLoopbackPort()
        let app = try LocalBroker.freeLoopbackPort()
        let options = try LANFleetFixture.options(discoveryPort: encrypted, broadcastInterval: .milliseconds(500))
        try await LANFleetFixture.withFleet(options) { fleet in
            let result = try await tinytuya(
                ["scan", String(plain), String(encrypted), String(app), "8"] + fleet.identities.map(\.devId))
            let found = try #require(result["devices"] as? [String: Any], "\(result)")
            for entry in fleet.identities {
                let device = try #require(
                    found[entry.devId] as? [String: Any], "\(entry.version) not found in \(found)")
                #expect(device["ip"] as? String == entry.ip)
                #expect(device["version"] as? String == entry.version.rawValue)
            }
        }
    }

    @Test("a 3.5 device answers a solicitation packed by tinytuya's code, and tinytuya reads the answer")
    func answersTinytuyaSolicitation() async throws {
        let solicitationPort = try LocalBroker.freeLoopbackPort()
        let replyPort = try LocalBroker.freeLoopbackPort()
        let answers = try LANTestSocket.udp(bindTo: "127.0.0.1", port: replyPort)
        let options = try LANFleetFixture.options(
            versions: [.v3_5], solicitationPort: solicitationPort, replyPort: replyPort)
        try await LANFleetFixture.withFleet(options) { fleet in
            let packed = try await tinytuya(["solicitation", "127.0.0.1"])
            let datagram = hexBytes(try #require(packed["hex"] as? String))
            let sender = try LANTestSocket.udp(bindTo: "127.0.0.1", port: 0)
            try sender.send(datagram, to: "127.255.255.255", port: solicitationPort)
            var answered = Set<String>()
            while answered.count < fleet.identities.count {
                let (bytes, source) = try answers.receiveDatagram()
                let read = try await tinytuya(["udp", hexString(bytes)])
                let json = try #require(read["json"] as? [String: Any])
                #expect(json["ip"] as? String == source)
                answered.insert(try #require(json["gwId"] as? String))
            }
            #expect(answered == Set(fleet.identities.map(\.devId)))
        }
    }
}

func hexBytes(_ text: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex, let next = text.index(index, offsetBy: 2, limitedBy: text.endIndex) {
        bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
        index = next
    }
    return bytes
}

func hexString(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}
