/// How the gateway holds the BLE link to a product (`ble: { connection: … }` in a
/// profile). Keeping it open makes commands fast but holds one of the adapter's few
/// connection slots and keeps the device's radio awake; on demand frees both between
/// commands at the cost of a connect and handshake (about a second) before each one.
public enum BLEConnectionPolicy: String, Hashable, Sendable, CaseIterable {
    /// Connect at start and reconnect whenever the link drops.
    case keep
    /// Connect for a command or a refresh, disconnect after an idle period (30 s by default).
    case onDemand = "on_demand"
}
