/// What the controller tells its listeners (the bridge API, the timer engine, the
/// maintenance scheduler).
public enum ControllerEvent: Hashable, Sendable {
    /// The confirmed state changed (a report arrived).
    case stateChanged(DeviceID, DeviceState)
    case availabilityChanged(DeviceID, ConnectionStatus)
    /// Fault labels newly raised (e.g. `water_shortage`); `faultCleared` when they drop.
    case faultRaised(DeviceID, [String])
    case faultCleared(DeviceID, [String])
    case devicePaired(TuyaDevice)
    case deviceRemoved(DeviceID)
    /// An unpaired device published on the broker while the pairing window was open
    /// (announced once per device and window).
    case candidateFound(PairingCandidate)
    /// Desired values the device never confirmed were dropped once `reapplyWithin` passed:
    /// they will not be applied when the device returns.
    case desiredExpired(DeviceID, [DataPointID])
}
