import Foundation
import TuyaCore

/// One entry of the bounded event log. Only this module makes them (the memberwise initializer).
public struct StoredEvent: Sendable, Hashable {
    /// Increases with every append; the log keeps the highest ones.
    public var id: Int64
    public var at: Date
    /// What happened, as a short code (`paired`, `command`, `auth_failed`).
    public var kind: String
    public var device: DeviceID?
    public var detail: JSONValue
}
