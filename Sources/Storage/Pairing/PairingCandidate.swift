import Foundation
import TuyaCore

/// An unknown devId heard on the broker during a pairing window: shown to the user as a
/// device they might add.
public struct PairingCandidate: Sendable, Hashable {
    public var devId: DeviceID
    public var firstSeen: Date
    public var lastSeen: Date
    /// How many frames from it were seen.
    public var frames: Int

    public init(devId: DeviceID, firstSeen: Date, lastSeen: Date, frames: Int) {
        self.devId = devId
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.frames = frames
    }
}
