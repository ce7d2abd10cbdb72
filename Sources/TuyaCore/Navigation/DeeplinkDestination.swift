/// Where a deep link (`youll://…`, an https universal link, or an in-app request) takes
/// a person. The `DeepLinks` module turns untrusted URLs into these and back
/// (`RoutingEngine.resolve(url:context:)` and `url(for:)`); the CLI and the app carry
/// them out. The route table is in `../shared/ARCHITECTURE.md`, section "Deep links".
public enum DeeplinkDestination: Hashable, Sendable, CustomStringConvertible {
    /// A maintenance reminder of one device: `type` is a maintenance type its profile
    /// declares (`refill`, `clean`, `replace-wick`, …).
    case tuyaMaintenance(type: String, deviceID: DeviceID)
    /// One paired device's page.
    case tuyaDevice(id: DeviceID)
    /// Pairing a new device.
    case tuyaPair
    /// Starting a meditation timer with a preset (a name from the configuration) for
    /// 1–240 minutes.
    case timer(preset: String, minutes: Int)
    /// One timer session, running or past.
    case timerSession(id: String)

    public var description: String {
        switch self {
        case .tuyaMaintenance(let type, let deviceID): "\(type) maintenance of \(deviceID)"
        case .tuyaDevice(let id): "device \(id)"
        case .tuyaPair: "pairing"
        case .timer(let preset, let minutes): "\(minutes)-minute timer with preset \(preset)"
        case .timerSession(let id): "timer session \(id)"
        }
    }
}
