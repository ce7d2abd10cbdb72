import Foundation
import LANLink
import TuyaController

#if canImport(Glibc)
    import Glibc
#endif

/// `lan:`: how the controller reaches Tuya LAN devices. Discovery listens on the configured
/// UDP ports; a port another program holds is logged with what to do and the daemon carries
/// on (devices still pair by IP, and the other ports still hear broadcasts).
extension GatewayDaemon {
    /// The network the controller is built with; without discovery when `lan.enabled` is
    /// false or no port is configured.
    func lanNetwork() -> LANNetwork {
        let lan = configuration.lan
        guard lan.enabled, !lan.discoveryPorts.isEmpty else { return LANNetwork() }
        let discovery = LANDiscoveryListener(host: lan.bind, ports: lan.discoveryPorts)
        let answerTo = lan.answerTo ?? (lan.bind == "0.0.0.0" ? Self.firstIPv4Address() : lan.bind)
        let solicitation = answerTo.map {
            LANNetwork.Solicitation(host: lan.solicitation.host, port: lan.solicitation.port, answerTo: $0)
        }
        return LANNetwork(discovery: discovery, solicitation: solicitation)
    }

    /// Logs how discovery started: the ports it hears, and for each port it could not bind
    /// one line saying what to do.
    func reportLANDiscovery(_ controller: TuyaController) async {
        let lan = configuration.lan
        guard lan.enabled else {
            logger.info("LAN discovery is switched off (lan.enabled: false); LAN devices pair by IP")
            return
        }
        guard !lan.discoveryPorts.isEmpty else { return }
        let problems = await controller.lanDiscoveryProblems
        for problem in problems {
            logger.warning("LAN discovery: \(Self.advice(port: problem.port, reason: problem.reason))")
        }
        let failed = Set(problems.map(\.port))
        let heard = lan.discoveryPorts.filter { !failed.contains($0) }
        if !heard.isEmpty {
            logger.info("LAN discovery on UDP \(heard.map(String.init).joined(separator: ", ")) (\(lan.bind))")
        }
    }

    /// One line for a port that could not be bound: what happened and what to do.
    static func advice(port: Int, reason: String) -> String {
        let fix =
            reason == "in use by another program"
            ? "stop the other program listening there (a tinytuya scan, Home Assistant's tuya-local or localtuya)"
            : "check lan.bind and lan.discovery_ports in the configuration"
        return "UDP \(port) cannot be used: \(reason); devices announcing on it are not discovered; "
            + "\(fix), or pair them by IP: youll-devices pair lan ID --ip ADDRESS --protocol 3.x"
    }

    /// The first up, non-loopback IPv4 address of this machine, for the solicitation's
    /// answer address; nil when there is none.
    static func firstIPv4Address() -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            let flags = Int32(bitPattern: entry.pointee.ifa_flags)
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
                flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0
            else { continue }
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            let length = socklen_t(MemoryLayout<sockaddr_in>.size)
            guard getnameinfo(address, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else {
                continue
            }
            return String(decoding: host.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return nil
    }
}
