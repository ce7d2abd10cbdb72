import Foundation
import TuyaCore

/// A devId seen publishing on `smart/device/out/<devId>` while the pairing window was
/// open and not yet paired: the user picks it and supplies its local key.
public struct PairingCandidate: Hashable, Sendable {
    public var id: DeviceID
    public var firstSeen: Date
    public var lastSeen: Date
    public var frames: Int

    public init(id: DeviceID, firstSeen: Date, lastSeen: Date, frames: Int) {
        self.id = id
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.frames = frames
    }
}
