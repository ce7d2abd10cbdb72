extension GatewayConfiguration {
    /// Stock Tuya Wi-Fi devices over the LAN protocol (`lan:`): where the gateway listens for
    /// their UDP broadcasts and where it sends the 3.5 solicitation when a pairing window opens.
    ///
    /// `enabled: false` stops the listening and the solicitation; devices already paired over
    /// the LAN are still reached at the address and version they were paired with.
    public struct LAN: Hashable, Sendable, CustomStringConvertible {
        public static let defaultDiscoveryPorts = [6666, 6667, 7000]

        public var enabled = true
        /// UDP ports to listen on: 6666 (3.1 plaintext), 6667 (3.2–3.5), 7000 (3.5 answers).
        /// Empty: no listening; devices pair by IP only.
        public var discoveryPorts = defaultDiscoveryPorts
        /// The local IPv4 address the discovery sockets bind; `0.0.0.0` hears every interface.
        public var bind = "0.0.0.0"
        /// Where the 3.5 solicitation goes: the broadcast address and port 7000 on a real network.
        public var solicitation = ListenAddress(host: "255.255.255.255", port: 7000)
        /// The gateway's own address, carried in the solicitation for the devices' answers;
        /// nil: the bind address when it is one, else the first non-loopback IPv4 address.
        public var answerTo: String?

        public init() {}

        public var description: String {
            guard enabled else { return "off" }
            let ports =
                discoveryPorts.isEmpty
                ? "no discovery" : "UDP \(discoveryPorts.map(String.init).joined(separator: ","))"
            return "\(ports) on \(bind), solicitation to \(solicitation)"
        }
    }
}

extension ConfigurationValue {
    /// A dotted-quad IPv4 address (`192.168.1.10`); names are not resolved.
    static func ipv4Address(_ text: String) throws(InvalidValue) -> String {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let valid =
            parts.count == 4
            && parts.allSatisfy { part in
                (1...3).contains(part.count) && part.allSatisfy { $0.isASCII && $0.isNumber }
                    && Int(part).map { $0 <= 255 } == true && !(part.count > 1 && part.hasPrefix("0"))
            }
        guard valid else {
            throw InvalidValue("'\(text.prefix(60))' is not an IPv4 address such as 192.168.1.10")
        }
        return text
    }

    /// `255.255.255.255:7000`: an IPv4 address and a port.
    static func ipv4Endpoint(_ text: String) throws(InvalidValue) -> GatewayConfiguration.ListenAddress {
        let address = try listenAddress(text)
        _ = try ipv4Address(address.host)
        return address
    }
}
