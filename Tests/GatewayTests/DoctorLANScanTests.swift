import DeviceSimulator
import Foundation
import LocalBroker
import Testing
import TuyaCore
import YoullTestSupport

@testable import Gateway

/// `doctor` explains an empty LAN scan: it listens on the discovery ports for a few seconds
/// and says who it heard, which port another program holds, or that nothing announced
/// itself (devices off, or on another subnet or VLAN). Real sockets on loopback: a UDP port
/// held by a socket without SO_REUSEADDR, and simulated LAN devices broadcasting to
/// 127.255.255.255 on a free port.
@Suite("doctor explains an empty LAN scan", .timeLimit(.minutes(2)))
struct DoctorLANScanTests {
    static func lan(ports: [Int], bind: String = "0.0.0.0") -> GatewayConfiguration.LAN {
        var lan = GatewayConfiguration.LAN()
        lan.bind = bind
        lan.discoveryPorts = ports
        return lan
    }

    @Test(
        "nothing heard: a warning naming the ports, the wait, this machine's networks, the VLAN cause and pairing by IP"
    )
    func nothingHeardVerdict() {
        let scan = LANScan(listened: .seconds(6), networks: ["192.168.1.20/24"])
        let line = DoctorCheck.lan(Self.lan(ports: [6666, 6667, 7000]), scan: scan)
        #expect(line.status == .warn)
        #expect(
            line.detail
                == "no Tuya device announced itself on UDP 6666, 6667, 7000 within 6.0 s (they announce about every 5 s); this machine is on 192.168.1.20/24"
        )
        let fix = line.fix ?? ""
        #expect(fix.contains("another subnet or VLAN than this machine"), "\(fix)")
        #expect(fix.contains("youll-devices pair lan ID --ip ADDRESS --protocol 3.x"))
        #expect(fix.contains("lan.enabled: false"))
    }

    @Test(
        "a port held by another program: the warning says nothing was heard, names the port and how to find the holder")
    func heldPortVerdict() {
        let scan = LANScan(listened: .seconds(6), problems: [.init(port: 6667, reason: "in use by another program")])
        let line = DoctorCheck.lan(Self.lan(ports: [6666, 6667, 7000]), scan: scan)
        #expect(line.status == .warn)
        #expect(
            line.detail
                == "no Tuya device heard: UDP 6667: in use by another program; devices announcing there are not discovered"
        )
        #expect(line.fix?.contains("stop the program holding UDP 6667") == true)
        #expect(line.fix?.contains("ss -ulpn") == true)
    }

    @Test("devices heard: ok, naming the first three with address, version and port")
    func heardVerdict() {
        let heard = (1...4).map {
            LANScan.Heard(id: "bf\($0)", ip: "192.168.1.\($0)", version: "3.\($0 % 3 + 3)", port: 6667)
        }
        let line = DoctorCheck.lan(Self.lan(ports: [6667]), scan: LANScan(listened: .seconds(6), heard: heard))
        #expect(line.status == .ok)
        #expect(
            line.detail
                == "heard 4 devices within 6.0 s: bf1 at 192.168.1.1 (3.4, UDP 6667), bf2 at 192.168.1.2 (3.5, UDP 6667), bf3 at 192.168.1.3 (3.3, UDP 6667) and 1 more"
        )
    }

    @Test("a forged announcement cannot write to the terminal: its fields are shown escaped and cut")
    func forgedAnnouncement() {
        let osc = "\u{1b}]52;c;ZXZpbA==\u{07}\u{1b}[2J"
        let heard = [
            LANScan.Heard(id: osc + String(repeating: "x", count: 200), ip: "1\u{9b}2", version: "3.3\n", port: 6667)
        ]
        let line = DoctorCheck.lan(Self.lan(ports: [6667]), scan: LANScan(listened: .seconds(6), heard: heard))
        let printed = DoctorReport.text([line], colour: false)
        #expect(!printed.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B })
        #expect(printed.contains("\\u{1b}]52;c;ZXZpbA==\\u{7}"))
        #expect(printed.filter { $0 == "\n" }.count == 1, "one line: \(printed)")
        #expect(!printed.contains(String(repeating: "x", count: 100)))
        // Any check's text, not only this one's.
        let raw = DoctorCheck.warn("broker", "refused: \u{1b}[31mred", fix: "see \u{1b}]0;title\u{07}")
        #expect(!DoctorReport.text([raw], colour: true).contains("\u{1b}[31mred"))
        #expect(!DoctorReport.text([raw], colour: true).contains("\u{1b}]0;"))
    }

    @Test(
        "the real listen: a held port is reported, simulated devices broadcasting on the other port are heard, and not when bound to one address"
    )
    func listensBesideHeldPort() async throws {
        let held = try HeldUDPPort()
        defer { held.close() }
        let port = try LocalBroker.freeLoopbackPort()
        let fleet = try LANSimulatorFleet(
            options: LANSimulatorOptions(
                lights: 1, diffusers: 1, versions: [.v3_3, .v3_5],
                baseAddress: "127.\(Int.random(in: 30...39)).\(Int.random(in: 1...250)).1", discoveryPort: port,
                plaintextDiscoveryPort: try LocalBroker.freeLoopbackPort(), broadcastInterval: .milliseconds(100),
                seed: UInt64.random(in: 1...1_000_000)),
            library: Repository.shippedProfiles)
        try await fleet.start()
        let scan = await LANScan.listen(Self.lan(ports: [held.port, port]), for: .seconds(2))
        // Bound to one address, the same sockets hear no broadcast at all.
        let narrow = await LANScan.listen(Self.lan(ports: [port], bind: "127.0.0.1"), for: .seconds(1))
        await fleet.stop()
        #expect(narrow.problems.isEmpty && narrow.heard.isEmpty, "\(narrow.heard)")
        let narrowLine = DoctorCheck.lan(Self.lan(ports: [port], bind: "127.0.0.1"), scan: narrow)
        #expect(narrowLine.status == .warn)
        #expect(narrowLine.detail.contains("listening on 127.0.0.1 only"), "\(narrowLine.detail)")
        #expect(narrowLine.fix?.hasPrefix("a socket bound to one address does not receive broadcasts") == true)
        #expect(scan.problems == [.init(port: held.port, reason: "in use by another program")])
        #expect(Set(scan.heard.map(\.id)) == Set(fleet.identities.map(\.devId)), "\(scan.heard)")
        #expect(Set(scan.heard.map(\.version)) == ["3.3", "3.5"])
        #expect(scan.heard.allSatisfy { $0.port == port })
        let line = DoctorCheck.lan(Self.lan(ports: [held.port, port]), scan: scan)
        #expect(line.status == .warn)
        #expect(line.detail.contains("UDP \(held.port): in use by another program"))
        #expect(line.detail.contains("heard 2 devices"))
    }

    @Test("the real listen on free ports with no device: nothing heard, and the line explains why a scan can be empty")
    func listensToSilence() async throws {
        let ports = try [LocalBroker.freeLoopbackPort(), LocalBroker.freeLoopbackPort()]
        let scan = await LANScan.listen(Self.lan(ports: ports), for: .milliseconds(300))
        #expect(scan.problems.isEmpty && scan.heard.isEmpty)
        #expect(scan.networks.allSatisfy { !$0.hasPrefix("127.") })
        let line = DoctorCheck.lan(Self.lan(ports: ports), scan: scan)
        #expect(line.status == .warn)
        #expect(line.detail.hasPrefix("no Tuya device announced itself on UDP \(ports[0]), \(ports[1]) within 0.3 s"))
        #expect(line.fix?.contains("VLAN") == true)
    }
}
