import Foundation
import Testing
import TuyaCore
import YoullTestSupport

@testable import Gateway

#if canImport(Glibc)
    import Glibc
#endif

/// `lan:` in the configuration, `device/add` with `transport: "lan"`, and doctor's `lan` line.
@Suite("LAN devices: configuration, device/add, doctor")
struct LANConfigurationTests {
    @Test(
        "lan: is off-able, takes its discovery ports, bind address and solicitation, and defaults to 6666, 6667, 7000")
    func parsesSection() throws {
        let defaults = try ConfigFixture.parse("")
        #expect(defaults.lan.enabled)
        #expect(defaults.lan.discoveryPorts == [6666, 6667, 7000])
        #expect(defaults.lan.bind == "0.0.0.0")
        #expect(defaults.lan.solicitation.description == "255.255.255.255:7000")
        let yaml = """
            lan:
              enabled: false
              discovery_ports: [16666, 16667]
              bind: 192.168.1.2
              solicitation: 192.168.1.255:17000
              answer_to: 192.168.1.2
            """
        let lan = try ConfigFixture.parse(yaml).lan
        #expect(!lan.enabled)
        #expect(lan.discoveryPorts == [16666, 16667])
        #expect(lan.bind == "192.168.1.2")
        #expect(lan.solicitation == .init(host: "192.168.1.255", port: 17000))
        #expect(lan.answerTo == "192.168.1.2")
        #expect(try ConfigFixture.parse("lan:\n  discovery_ports: []\n").lan.discoveryPorts.isEmpty)
        let switchedOff = try ConfigurationLoader.apply(environment: ["YOULL_LAN": "off"], to: defaults)
        #expect(!switchedOff.lan.enabled)
    }

    @Test("a bad lan: value is refused with its key path, line and reason")
    func refusesBadValues() {
        let cases: [(yaml: String, key: String, line: Int, reason: String)] = [
            ("lan:\n  discovery_port: [1]\n", "lan.discovery_port", 2, "did you mean 'discovery_ports'?"),
            ("lan:\n  discovery_ports: [6667, 6667]\n", "lan.discovery_ports[1]", 2, "port 6667 is listed twice"),
            ("lan:\n  discovery_ports: [70000]\n", "lan.discovery_ports[0]", 2, "UDP port 70000 is outside 1...65535"),
            ("lan:\n  discovery_ports: 6667\n", "lan.discovery_ports", 2, "expected a list"),
            ("lan:\n\n  bind: my-gateway\n", "lan.bind", 3, "is not an IPv4 address"),
            ("lan:\n  bind: 192.168.1.256\n", "lan.bind", 2, "is not an IPv4 address"),
            ("lan:\n  solicitation: 255.255.255.255\n", "lan.solicitation", 2, "expected host:port"),
            ("lan:\n  enabled: maybe\n", "lan.enabled", 2, "expected on or off"),
        ]
        for item in cases {
            let error = ConfigFixture.error(item.yaml)
            #expect(error?.keyPath == item.key, "\(item.yaml): \(String(describing: error))")
            #expect(error?.line == item.line, "\(item.yaml): \(String(describing: error))")
            #expect(error?.reason.contains(item.reason) == true, "\(item.yaml): \(String(describing: error))")
        }
        #expect(ConfigFixture.error(environment: ["YOULL_LAN": "maybe"])?.variable == "YOULL_LAN")
    }

    @Test("device/add with transport lan takes an optional IPv4 address and protocol version, and refuses bad ones")
    func deviceAddLAN() throws {
        func parse(_ json: String) throws(BridgePayloadError) -> BridgeRequest {
            try BridgeRequest.parse(verb: "device/add", payload: Array(json.utf8))
        }
        let full = try parse(
            #"{"id":"bf123","local_key":"0123456789abcdef","transport":"lan","ip":"192.168.1.40","version":"3.5"}"#)
        guard case .deviceAdd(let add) = full else {
            Issue.record("not device/add")
            return
        }
        #expect(add.transport == .lan && add.lan == .init(ip: "192.168.1.40", version: "3.5") && add.ble == nil)
        guard case .deviceAdd(let bare) = try parse(#"{"id":"bf123","local_key":"0123456789abcdef","transport":"lan"}"#)
        else {
            Issue.record("not device/add")
            return
        }
        #expect(bare.lan == .init(ip: nil, version: nil))
        let refused: [(json: String, field: String)] = [
            (#"{"id":"bf1","local_key":"0123456789abcdef","transport":"lan","ip":"lamp.local"}"#, "ip"),
            (#"{"id":"bf1","local_key":"0123456789abcdef","transport":"lan","ip":"10.0.0.300"}"#, "ip"),
            (#"{"id":"bf1","local_key":"0123456789abcdef","transport":"lan","ip":"1.2.3"}"#, "ip"),
            (#"{"id":"bf1","local_key":"0123456789abcdef","transport":"lan","version":"33"}"#, "version"),
            (#"{"id":"bf1","local_key":"0123456789abcdef","transport":"lan","version":3.3}"#, "version"),
            (#"{"id":"bf1","local_key":"0123456789abcdef","ip":"10.0.0.1"}"#, "ip"),
            (#"{"id":"bf1","local_key":"0123456789abcdef","transport":"wifi"}"#, "transport"),
        ]
        for item in refused {
            do {
                _ = try parse(item.json)
                Issue.record("accepted \(item.json)")
            } catch {
                #expect(error.field == item.field, "\(item.json): \(error)")
            }
        }
    }

    @Test("doctor's lan line: ok when the ports bind, one warning naming the busy port and the fix, ok when off")
    func doctorLine() {
        var lan = GatewayConfiguration.LAN()
        #expect(DoctorCheck.lan(lan, problems: []).status == .ok)
        let busy = DoctorCheck.lan(lan, problems: [.init(port: 6667, reason: "in use by another program")])
        #expect(busy.status == .warn)
        #expect(busy.detail == "UDP 6667: in use by another program; devices announcing there are not discovered")
        #expect(busy.fix?.contains("stop the program holding UDP 6667") == true, "\(busy.fix ?? "")")
        #expect(busy.fix?.contains("youll-devices pair lan ID --ip ADDRESS") == true)
        lan.enabled = false
        #expect(DoctorCheck.lan(lan, problems: []).detail.contains("switched off"))
    }

    @Test("doctor binds the configured ports: one held by a socket without SO_REUSEADDR is reported busy")
    func doctorProbesPorts() async throws {
        let holder = try HeldUDPPort()
        defer { holder.close() }
        var lan = GatewayConfiguration.LAN()
        lan.bind = "127.0.0.1"
        lan.discoveryPorts = [holder.port]
        let problems = await DoctorCheck.probeDiscoveryPorts(lan)
        #expect(problems == [.init(port: holder.port, reason: "in use by another program")])
        let line = DoctorCheck.lan(lan, problems: problems)
        #expect(line.status == .warn && line.detail.contains("UDP \(holder.port)"))
    }
}
