import TuyaCore

/// The answer to `health_check`: whether the bridge can do its work now, and its BLE links
/// by friendly name.
public struct HealthCheckPayload: Codable, Hashable, Sendable {
    public var healthy: Bool
    /// `connected` or `disconnected`.
    public var broker: String
    /// `ok`, `degraded: <why>` or `failing`.
    public var database: String
    public var uptimeSeconds: Int64
    /// Devices by availability, every availability present.
    public var devices: [String: Int]
    public var permitJoin: Bool
    public var ble: BLE

    /// `{"adapter","limit","connected":[names],"waiting":[names]}`, and `unavailable` with why.
    public struct BLE: Codable, Hashable, Sendable {
        @NullWhenAbsent public var adapter: String?
        public var limit: Int
        public var connected: [String]
        public var waiting: [String]
        public var unavailable: String?
    }

    enum CodingKeys: String, CodingKey {
        case healthy, broker, database, devices, ble
        case uptimeSeconds = "uptime_seconds"
        case permitJoin = "permit_join"
    }
}
