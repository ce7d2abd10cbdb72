/// Tuya product categories the gateway drives (protocol/TUYA.md §4).
public enum DeviceCategory: String, CaseIterable, Sendable {
    /// `dj`: lights.
    case light = "dj"
    /// `xxj`: aroma diffusers.
    case diffuser = "xxj"
}

/// The radio a device is reached through.
public enum Transport: String, CaseIterable, Sendable {
    case mqtt
    case ble
    /// Tuya's LAN protocol (3.1–3.5) on TCP 6668: the stock Wi-Fi devices people own.
    case lan
}
