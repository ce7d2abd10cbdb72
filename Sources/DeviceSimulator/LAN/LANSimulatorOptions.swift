import TuyaWire

/// What `LANSimulatorFleet` runs: how many devices, which protocol versions, and where
/// everything listens and broadcasts. Every address is on loopback; tests pick their own
/// base address and discovery ports so suites running at once never meet.
public struct LANSimulatorOptions: Sendable, Hashable {
    public var lights: Int
    public var diffusers: Int
    /// Protocol versions handed out in turn, device by device (3.3, 3.4, 3.5 by default).
    public var versions: [LANProtocolVersion]
    public var lightProfile: String
    public var diffuserProfile: String
    /// The first device's address; the next devices count up from it (skipping .0 and .255).
    public var baseAddress: String
    /// The TCP port every device listens on, each at its own address (6668 as on a real network).
    public var port: Int
    /// Where announcements go: the loopback broadcast address by default.
    public var discoveryAddress: String
    /// UDP port of encrypted announcements (3.2–3.5; 6667 on a real network).
    public var discoveryPort: Int
    /// UDP port of plaintext announcements (3.1; 6666 on a real network).
    public var plaintextDiscoveryPort: Int
    /// Time between announcements; nil announces once at start only.
    public var broadcastInterval: Duration?
    /// Where the devices listen for 3.5 solicitations; nil: they do not.
    public var solicitationAddress: String?
    public var solicitationPort: Int
    /// The port 3.5 devices send their answer to (7000 on a real network).
    public var solicitationReplyPort: Int
    /// Decides devIds, keys, nonces and dropped commands.
    public var seed: UInt64
    public var behaviour: DeviceBehaviour

    public init(
        lights: Int, diffusers: Int, versions: [LANProtocolVersion] = [.v3_3, .v3_4, .v3_5],
        lightProfile: String = "rgbcct-bulb-v2", diffuserProfile: String = "aroma-diffuser-modern",
        baseAddress: String = "127.0.10.1", port: Int = 6668, discoveryAddress: String = "127.255.255.255",
        discoveryPort: Int = Int(LANDiscovery.encryptedPort),
        plaintextDiscoveryPort: Int = Int(LANDiscovery.plaintextPort),
        broadcastInterval: Duration? = .seconds(5), solicitationAddress: String? = nil,
        solicitationPort: Int = Int(LANDiscovery.solicitationPort),
        solicitationReplyPort: Int = Int(LANDiscovery.solicitationPort), seed: UInt64 = 1,
        behaviour: DeviceBehaviour = DeviceBehaviour()
    ) {
        self.lights = lights
        self.diffusers = diffusers
        self.versions = versions
        self.lightProfile = lightProfile
        self.diffuserProfile = diffuserProfile
        self.baseAddress = baseAddress
        self.port = port
        self.discoveryAddress = discoveryAddress
        self.discoveryPort = discoveryPort
        self.plaintextDiscoveryPort = plaintextDiscoveryPort
        self.broadcastInterval = broadcastInterval
        self.solicitationAddress = solicitationAddress
        self.solicitationPort = solicitationPort
        self.solicitationReplyPort = solicitationReplyPort
        self.seed = seed
        self.behaviour = behaviour
    }
}
