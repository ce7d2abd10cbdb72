import Foundation

/// An unknown devId heard on `smart/device/out/<devId>`, or an unpaired LAN device heard
/// broadcasting, while the pairing window was open: shown to the user as a device they
/// might add with its local key. One type for the controller, which notices candidates,
/// and the store, which keeps them.
public struct PairingCandidate: Hashable, Sendable {
    public var id: DeviceID
    public var firstSeen: Date
    public var lastSeen: Date
    /// How many frames from it were seen.
    public var frames: Int
    /// For a device heard broadcasting on the LAN: its address, version and product key.
    public var lan: LANSighting?

    public init(id: DeviceID, firstSeen: Date, lastSeen: Date, frames: Int, lan: LANSighting? = nil) {
        self.lan = lan
        self.id = id
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.frames = frames
    }
}
