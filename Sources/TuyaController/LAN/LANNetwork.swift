import LANLink
import Logging
import Timing
import TuyaWire

/// How the controller reaches Tuya LAN devices: the connector for their TCP connections and,
/// when the gateway listens for them, the discovery listener and where to send the 3.5
/// solicitation. The daemon gives it TCP and UDP 6666/6667/7000; tests give it free ports
/// and simulated devices on loopback addresses.
public struct LANNetwork: Sendable {
    public var connector: any LANConnector
    /// Hears broadcasts; nil: devices are reached only at the addresses they were paired with.
    public var discovery: LANDiscoveryListener?
    /// Where the 3.5 solicitation goes when a pairing window opens (the broadcast address
    /// and port 7000 on a real network), and the address devices should answer to.
    public var solicitation: Solicitation?
    /// Where the links log what the user sees nowhere else (bad frames from a device).
    public var logger: Logger
    /// How every device link connects and keeps its connection.
    var link = LANDeviceLink.Configuration()

    public struct Solicitation: Hashable, Sendable {
        public var host: String
        public var port: Int
        /// The gateway's own address, which the solicitation carries for the answers.
        public var answerTo: String

        public init(host: String = "255.255.255.255", port: Int = 7000, answerTo: String) {
            self.host = host
            self.port = port
            self.answerTo = answerTo
        }
    }

    public init(
        connector: any LANConnector = TCPConnector(), discovery: LANDiscoveryListener? = nil,
        solicitation: Solicitation? = nil, logger: Logger = Logger(label: "youll-devices.lan")
    ) {
        self.logger = logger
        self.connector = connector
        self.discovery = discovery
        self.solicitation = solicitation
    }

    /// Sends the 3.5 discovery solicitation, when the network has one: 3.5 devices may only
    /// announce themselves when asked (TUYA.md §2.1).
    func solicit() async {
        guard let discovery, let solicitation else { return }
        var random = SystemRandomNumberGenerator()
        let nonce = (0..<12).map { _ in UInt8.random(in: 0...255, using: &random) }
        guard let datagram = try? LANSolicitation(ip: solicitation.answerTo).encode(nonce: nonce) else { return }
        try? await discovery.send(datagram, to: solicitation.host, port: solicitation.port)
    }
}
