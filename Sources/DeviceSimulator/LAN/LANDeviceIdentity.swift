import TuyaWire

/// A simulated LAN device as a gateway pairs it: its identity, address and protocol
/// version (what `devices.json` carries as `ip` and `version`).
public struct LANDeviceIdentity: Sendable, Hashable {
    public let identity: DeviceIdentity
    /// The address the device listens on at start (`LANSimulatorFleet.move` changes it).
    public let ip: String
    public let version: LANProtocolVersion

    public init(identity: DeviceIdentity, ip: String, version: LANProtocolVersion) {
        self.identity = identity
        self.ip = ip
        self.version = version
    }

    public var devId: String { identity.devId }
    public var localKey: String { identity.localKey }
}
