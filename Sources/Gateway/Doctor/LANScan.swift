import LANLink
import NIOCore
import TuyaWire

/// What `doctor` saw when it listened for Tuya devices' UDP broadcasts, to explain an empty
/// scan: the ports it could not bind, every device it heard, and this machine's own IPv4
/// networks (a device on another subnet or VLAN is never heard: broadcasts stop at a router).
public struct LANScan: Hashable, Sendable {
    /// One device heard announcing itself (made here only: the memberwise initializer).
    public struct Heard: Hashable, Sendable {
        public var id: String
        public var ip: String
        public var version: String
        public var port: Int
    }

    /// How long doctor listened; zero: it only bound the ports.
    public var listened: Duration
    /// The configured ports that could not be bound, and why.
    public var problems: [DoctorCheck.PortProblem]
    /// Devices heard, one entry per device, in the order first heard.
    public var heard: [Heard]
    /// Datagrams on the discovery ports that were not a Tuya announcement.
    public var unreadable: Int
    /// This machine's IPv4 networks outside loopback, as `192.168.1.20/24`.
    public var networks: [String]

    public init(
        listened: Duration, problems: [DoctorCheck.PortProblem] = [], heard: [Heard] = [], unreadable: Int = 0,
        networks: [String] = []
    ) {
        self.listened = listened
        self.problems = problems
        self.heard = heard
        self.unreadable = unreadable
        self.networks = networks
    }

    /// Binds the configured discovery ports as the daemon would (SO_REUSEADDR, so a running
    /// daemon keeps hearing too), listens for `duration`, and lets them go.
    public static func listen(_ lan: GatewayConfiguration.LAN, for duration: Duration) async -> LANScan {
        let networks = localNetworks()
        guard lan.enabled, !lan.discoveryPorts.isEmpty else { return LANScan(listened: .zero, networks: networks) }
        let listener = LANDiscoveryListener(host: lan.bind, ports: lan.discoveryPorts)
        let problems = await listener.start().map { DoctorCheck.PortProblem(port: $0.port, reason: $0.reason) }
        var scan = LANScan(listened: duration, problems: problems, networks: networks)
        if duration > .zero, problems.count < lan.discoveryPorts.count {
            let collector = Task {
                var heard: [Heard] = []
                var unreadable = 0
                for await datagram in listener.datagrams {
                    guard case .announcement(let broadcast, _)? = try? LANDiscovery.decode(datagram.bytes) else {
                        unreadable += 1
                        continue
                    }
                    if !heard.contains(where: { $0.id == broadcast.gwId }) {
                        heard.append(
                            Heard(id: broadcast.gwId, ip: broadcast.ip, version: broadcast.version, port: datagram.port)
                        )
                    }
                }
                return (heard, unreadable)
            }
            try? await Task.sleep(for: duration)
            await listener.stop()
            (scan.heard, scan.unreadable) = await collector.value
        } else {
            await listener.stop()
        }
        return scan
    }

    /// Every IPv4 interface address outside 127/8 with its prefix length.
    static func localNetworks() -> [String] {
        guard let devices = try? System.enumerateDevices() else { return [] }
        var networks: [String] = []
        for device in devices {
            guard case .v4(let address)? = device.address, case .v4(let mask)? = device.netmask else { continue }
            let host = UInt32(bigEndian: address.address.sin_addr.s_addr)
            guard host >> 24 != 127 else { continue }
            let prefix = UInt32(bigEndian: mask.address.sin_addr.s_addr).nonzeroBitCount
            let text = "\(host >> 24).\(host >> 16 & 0xFF).\(host >> 8 & 0xFF).\(host & 0xFF)/\(prefix)"
            if !networks.contains(text) { networks.append(text) }
        }
        return networks
    }
}
