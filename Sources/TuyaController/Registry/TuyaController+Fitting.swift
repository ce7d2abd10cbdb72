import TuyaCore

extension TuyaController {
    /// The command as close as the device's profile can show it (`DeviceProfile.fitting`);
    /// unchanged for a device that is not paired or whose profile is gone.
    public func fitted(_ command: DeviceCommand, to id: DeviceID) async -> (
        command: DeviceCommand, adjustments: [String]
    ) {
        guard let device = device(id), let profile = library.profile(id: device.profileID) else { return (command, []) }
        return profile.fitting(command)
    }
}
