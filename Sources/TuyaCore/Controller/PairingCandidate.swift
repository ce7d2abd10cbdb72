import Foundation

/// An unknown devId heard on `smart/device/out/<devId>` while the pairing window was
/// open: shown to the user as a device they might add with its local key. One type for
/// the controller, which notices candidates, and the store, which keeps them.
public struct PairingCandidate: Hashable, Sendable {
    public var id: DeviceID
    public var firstSeen: Date
    public var lastSeen: Date
    /// How many frames from it were seen.
    public var frames: Int

    public init(id: DeviceID, firstSeen: Date, lastSeen: Date, frames: Int) {
        self.id = id
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.frames = frames
    }
}
