import Foundation
import TuyaCore

/// The usage totals a `UsageCounter` had at one moment, for the store: Codable, so it
/// survives a restart. It holds totals only; an interval that was running when the
/// snapshot was taken is counted up to `takenAt` and not beyond, because nobody knows
/// whether the device stayed on while the gateway was down.
public struct UsageSnapshot: Codable, Hashable, Sendable {
    /// One device's accumulated on-time of one capability.
    public struct Entry: Codable, Hashable, Sendable {
        public var device: DeviceID
        /// A `Capability` raw value (`mist`, `power`); unknown names are ignored on restore.
        public var capability: String
        public var seconds: Double

        public init(device: DeviceID, capability: String, seconds: Double) {
            self.device = device
            self.capability = capability
            self.seconds = seconds
        }
    }

    public var takenAt: Date
    /// Sorted by device, then capability, so equal counters encode to equal bytes.
    public var entries: [Entry]

    public init(takenAt: Date, entries: [Entry]) {
        self.takenAt = takenAt
        self.entries = entries.sorted { ($0.device, $0.capability) < ($1.device, $1.capability) }
    }
}
