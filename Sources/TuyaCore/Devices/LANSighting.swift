import Foundation

/// What a Tuya LAN device said about itself in its UDP broadcast: where it is, which
/// protocol version it speaks and its product key. The controller keeps the latest per
/// device: a paired device's address follows it, and an unknown one is a pairing candidate.
public struct LANSighting: Hashable, Sendable {
    public var id: DeviceID
    public var ip: String
    /// As announced ("3.3"); the controller checks that it speaks it.
    public var version: String
    public var productKey: String?
    public var lastSeen: Date

    public init(id: DeviceID, ip: String, version: String, productKey: String? = nil, lastSeen: Date) {
        self.id = id
        self.ip = ip
        self.version = version
        self.productKey = productKey
        self.lastSeen = lastSeen
    }
}
