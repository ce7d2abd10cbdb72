import TuyaCore

/// Where a device link's news goes: its events to `hub`, its new desired state to
/// `onDesiredChange` (the registry saves it). The two always change together: a link built
/// under pairing's private hub is handed to the registry's in one step (`adopt`).
struct LinkListeners: Sendable {
    var hub: EventHub
    var onDesiredChange: @Sendable (DataPoints) -> Void
}

/// The part of every link's configuration that its `DeviceLinkCore` reads.
protocol DeviceLinkTiming {
    /// How long a command waits for the device to confirm it.
    var confirmationTimeout: Duration { get }
    /// How long an unconfirmed desired value is re-applied (`devices.reapply_within`).
    var reapplyWithin: Duration? { get }
}

extension DeviceLinkCore {
    /// A core for a link configured with `timing`, started at `startedAt`.
    init(
        device: TuyaDevice, profile: DeviceProfile, timing: some DeviceLinkTiming, desired: DataPoints,
        confirmed: DataPoints, startedAt: Duration
    ) {
        self.init(
            device: device, profile: profile, confirmationTimeout: timing.confirmationTimeout, desired: desired,
            confirmed: confirmed, startedAt: startedAt, reapplyWithin: timing.reapplyWithin)
    }
}
