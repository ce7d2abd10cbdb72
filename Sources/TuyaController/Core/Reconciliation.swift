import TuyaCore

/// Desired-state reconciliation after the broker reconnects or a device comes back: only
/// the DPs whose reported value differs from what the user asked for are written again,
/// so a device that kept its state receives no frame at all.
enum Reconciliation {
    /// The desired DPs the device does not hold: reported with another value, or not
    /// reported at all. DPs the user never set are left alone.
    static func plan(reported: DataPoints, desired: DataPoints) -> DataPoints {
        desired.filter { id, value in reported[id] != value }
    }
}
