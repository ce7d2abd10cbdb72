import Foundation
import TuyaCore

/// One entry of the bounded event log.
public struct StoredEvent: Sendable, Hashable {
    /// Increases with every append; the log keeps the highest ones.
    public var id: Int64
    public var at: Date
    /// What happened, as a short code (`paired`, `command`, `auth_failed`).
    public var kind: String
    public var device: DeviceID?
    public var detail: JSONValue

    public init(id: Int64, at: Date, kind: String, device: DeviceID?, detail: JSONValue) {
        self.id = id
        self.at = at
        self.kind = kind
        self.device = device
        self.detail = detail
    }
}
