import LANLink

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
        guard lan.enabled else {
            return .ok("lan", "discovery switched off (lan.enabled: false); LAN devices pair by IP")
        }
        guard !lan.discoveryPorts.isEmpty else {
            return .ok("lan", "no discovery ports configured (lan.discovery_ports: []); LAN devices pair by IP")
        }
        let ports = lan.discoveryPorts.map(String.init).joined(separator: ", ")
        guard !problems.isEmpty else { return .ok("lan", "UDP \(ports) can be bound on \(lan.bind) to hear devices") }
        let held = problems.filter { $0.reason == "in use by another program" }
        let fix =
            held.isEmpty
            ? "check lan.bind and lan.discovery_ports; or pair devices by IP: youll-devices pair lan ID --ip ADDRESS"
            : "stop the program holding UDP \(held.map { String($0.port) }.joined(separator: ", ")) "
                + "(a tinytuya scan, Home Assistant's tuya-local or localtuya: `ss -ulpn` shows it); "
                + "or pair devices by IP: youll-devices pair lan ID --ip ADDRESS --protocol 3.x"
        return .warn(
            "lan",
            problems.map(\.description).joined(separator: "; ")
                + "; devices announcing there are not discovered", fix: fix)
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
