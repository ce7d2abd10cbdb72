import LANLink
import Timing

/// The `lan` line: whether the gateway can hear Tuya LAN devices' UDP broadcasts.
extension DoctorCheck {
    /// A discovery port that could not be bound, and why (`in use by another program`).
    public struct PortProblem: Hashable, Sendable, CustomStringConvertible {
        public var port: Int
        public var reason: String

        public init(port: Int, reason: String) {
            self.port = port
            self.reason = reason
        }

        public var description: String { "UDP \(port): \(reason)" }
    }

    /// `problems` are the configured discovery ports that could not be bound just now.
    public static func lan(_ lan: GatewayConfiguration.LAN, problems: [PortProblem]) -> DoctorCheck {
        Self.lan(lan, scan: LANScan(listened: .zero, problems: problems))
    }

    /// The `lan` line from what doctor heard while listening: who announced themselves, or
    /// why a scan comes back empty (a port another program holds, or nothing on the air:
    /// devices off, or on another subnet or VLAN than this machine).
    public static func lan(_ lan: GatewayConfiguration.LAN, scan: LANScan) -> DoctorCheck {
        guard lan.enabled else {
            return .ok("lan", "discovery switched off (lan.enabled: false); LAN devices pair by IP")
        }
        guard !lan.discoveryPorts.isEmpty else {
            return .ok("lan", "no discovery ports configured (lan.discovery_ports: []); LAN devices pair by IP")
        }
        let ports = lan.discoveryPorts.map(String.init).joined(separator: ", ")
        let problems = scan.problems
        let seconds = scan.listened.roundedText
        if !scan.heard.isEmpty {
            // Announcements are unauthenticated datagrams anyone on the LAN can send.
            let shown = scan.heard.prefix(3).map {
                "\(BridgeText.printable($0.id, maximumLength: 64)) at \(BridgeText.printable($0.ip, maximumLength: 64)) "
                    + "(\(BridgeText.printable($0.version, maximumLength: 16)), UDP \($0.port))"
            }
            let more = scan.heard.count > 3 ? " and \(scan.heard.count - 3) more" : ""
            let heard =
                "heard \(scan.heard.count) device\(scan.heard.count == 1 ? "" : "s") within \(seconds): "
                + shown.joined(separator: ", ") + more
            guard !problems.isEmpty else { return .ok("lan", heard) }
            return portWarning(problems, heardNothing: false, suffix: "; " + heard)
        }
        guard problems.isEmpty else { return portWarning(problems, heardNothing: scan.listened > .zero, suffix: "") }
        guard scan.listened > .zero else {
            return .ok("lan", "UDP \(ports) can be bound on \(lan.bind) to hear devices")
        }
        let networks =
            scan.networks.isEmpty
            ? "" : "; this machine is on \(scan.networks.joined(separator: ", "))"
        let noise = scan.unreadable > 0 ? "; \(scan.unreadable) datagram(s) that were not Tuya announcements" : ""
        if lan.bind != "0.0.0.0" {
            return .warn(
                "lan",
                "no Tuya device announced itself on UDP \(ports) within \(seconds), listening on \(lan.bind) only"
                    + networks + noise,
                fix: "a socket bound to one address does not receive broadcasts: set lan.bind: 0.0.0.0 "
                    + "(or remove it), or pair devices by IP: youll-devices pair lan ID --ip ADDRESS --protocol 3.x")
        }
        return .warn(
            "lan",
            "no Tuya device announced itself on UDP \(ports) within \(seconds) (they announce about every 5 s)"
                + networks + noise,
            fix: "if your Tuya Wi-Fi devices are on and online in the Smart Life app, they are on another subnet "
                + "or VLAN than this machine, and broadcasts do not cross the router between: compare a device's "
                + "IP in the app with the networks above, then run the gateway on the devices' network (or relay "
                + "UDP 6666/6667 to it), or pair each device by IP: youll-devices pair lan ID --ip ADDRESS "
                + "--protocol 3.x (some 3.5 firmware never announces itself); no Tuya Wi-Fi devices at all: "
                + "set lan.enabled: false")
    }

    /// A warning naming the ports that could not be bound, with the way out for each cause.
    private static func portWarning(_ problems: [PortProblem], heardNothing: Bool, suffix: String) -> DoctorCheck {
        let held = problems.filter { $0.reason == "in use by another program" }
        let fix =
            held.isEmpty
            ? "check lan.bind and lan.discovery_ports; or pair devices by IP: youll-devices pair lan ID --ip ADDRESS"
            : "stop the program holding UDP \(held.map { String($0.port) }.joined(separator: ", ")) "
                + "(a tinytuya scan, Home Assistant's tuya-local or localtuya: `ss -ulpn` shows it); "
                + "or pair devices by IP: youll-devices pair lan ID --ip ADDRESS --protocol 3.x"
        let lead = heardNothing ? "no Tuya device heard: " : ""
        return .warn(
            "lan",
            lead + problems.map(\.description).joined(separator: "; ")
                + "; devices announcing there are not discovered" + suffix, fix: fix)
    }

    /// Binds the configured discovery ports as the daemon would, and lets them go.
    static func probeDiscoveryPorts(_ lan: GatewayConfiguration.LAN) async -> [PortProblem] {
        guard lan.enabled, !lan.discoveryPorts.isEmpty else { return [] }
        let listener = LANDiscoveryListener(host: lan.bind, ports: lan.discoveryPorts)
        let problems = await listener.start()
        await listener.stop()
        return problems.map { PortProblem(port: $0.port, reason: $0.reason) }
    }
}
