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

    /// A report that arrives while the device is connected: its changes made at the device
    /// (a button press) become the new desired values, so reconciliation does not undo
    /// them later. DPs with a write still pending are left to that write. Returns whether
    /// `desired` changed.
    static func adopt(_ values: DataPoints, into desired: inout DataPoints, pending: DataPoints) -> Bool {
        var adopted = false
        for (id, value) in values where desired[id] != nil && desired[id] != value && pending[id] == nil {
            desired[id] = value
            adopted = true
        }
        return adopted
    }
}
