import TuyaCore

/// One reminder: a maintenance type of one device.
public struct ReminderKey: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    public var device: DeviceID
    /// A maintenance type of the device's profile (`refill`, `clean`, …).
    public var type: String

    public init(device: DeviceID, type: String) {
        self.device = device
        self.type = type
    }

    public static func < (lhs: ReminderKey, rhs: ReminderKey) -> Bool {
        (lhs.device, lhs.type) < (rhs.device, rhs.type)
    }

    public var description: String { "\(device) \(type)" }
}
