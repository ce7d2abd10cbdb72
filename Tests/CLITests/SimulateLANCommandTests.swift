import Foundation
import LocalBroker
import Testing
import YoullTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Real parts: the built `youll-devices simulate --lan` process, its devices.json, and a
/// TCP connection to one of its devices on a loopback address of its own.
@Suite("youll-devices simulate --lan")
struct SimulateLANCommandTests {
    @Test("simulate --lan writes devices.json with each device's ip and version, and the devices listen there")
    func lanFleet() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "simulate-lan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("devices.json").path
        let base = "127.\(Int.random(in: 20...250)).\(Int.random(in: 1...250)).1"
        let arguments = [
            "simulate", "--lan", "3", "--lan-versions", "3.3,3.4,3.5", "--lan-base-address", base,
            "--lan-discovery-port", String(try LocalBroker.freeLoopbackPort()), "--lan-solicitation-port", "0",
            "--devices-json", path, "--profiles", Repository.devicesDirectory.path,
        ]
        _ = try await ChildProcess.streamingLines(try CLIRunner.binary().path, arguments) { lines, signal in
            // The banner comes once every device listens.
            let banner = try await lines.next() ?? ""
            defer { try? signal(SIGTERM) }
            #expect(banner.contains("simulating 3 LAN devices (3.3, 3.4, 3.5)"), "\(banner)")
            let entries = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [[String: Any]]
            )
            #expect(entries.map { $0["version"] as? String } == ["3.3", "3.4", "3.5"])
            let addresses = entries.compactMap { $0["ip"] as? String }
            #expect(Set(addresses).count == 3)
            #expect(addresses.first == base)
            for address in addresses { #expect(canConnect(to: address, port: 6668), "\(address):6668") }
        }
    }

    @Test(
        "bad --lan options exit with status 1 and one line naming the option",
        arguments: [
            (["--lan", "2", "--lan-versions", "3.3,4.0"], "--lan-versions"),
            (["--lan", "2", "--lan-base-address", "10.0.0.1"], "--lan-base-address"),
            (["--lan", "2", "--lan-diffusers", "5"], "--lan-diffusers"),
            (["--lan", "99999"], "--lan"),
        ] as [([String], String)])
    func badOptions(arguments: [String], expected: String) async throws {
        let result = try await CLIRunner.run(["simulate"] + arguments)
        #expect(result.status == 1)
        #expect(result.stderr.split(separator: "\n").count == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.contains(expected), "stderr: \(result.stderr)")
    }

    private func canConnect(to ip: String, port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, ip, &address.sin_addr)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
