import DeepLinks
import SessionEngine
import TuyaCore

extension GatewayConfiguration.Timer {
    /// The presets a session, and a `youll://timer?preset=` link, may name: the built-ins
    /// and the config file's `timer.presets`. The one list every door reads.
    public var presetNames: Set<String> { Set(presets.map(\.name)) }
}

extension RouteContext {
    /// What links resolve against in this gateway: the paired devices with their profiles'
    /// maintenance types (a device whose profile is gone is paired with none), the timer's
    /// presets, whether a session runs, the universal-link hosts, and the devices' friendly
    /// names (so `device=lamp` works as well as the id). The daemon, its
    /// maintenance service and `open --dry-run` all build their context here.
    public static func gateway(
        devices: [(id: DeviceID, profileID: String)], library: ProfileLibrary, presets: Set<String>,
        sessionRunning: Bool = false,
        universalLinkHosts: Set<String>, names: [DeviceID: String] = [:]
    ) -> RouteContext {
        var context = RouteContext(
            presets: presets, sessionRunning: sessionRunning, universalLinkHosts: universalLinkHosts)
        for (id, name) in names { context.deviceNames[name] = id }
        for device in devices {
            if let profile = library.profile(id: device.profileID) {
                context.pair(device.id, profile: profile)
            } else {
                context.pairedDevices[device.id] = []
            }
        }
        return context
    }
}
