import TuyaCore

/// What resolution checks links against: a value the caller assembles from the device
/// registry, the profiles, the configuration and the session engine, so the engine
/// itself stays pure.
public struct RouteContext: Hashable, Sendable {
    /// Paired devices, each with the maintenance types its profile declares.
    public var pairedDevices: [DeviceID: Set<String>]
    /// Names of the configured timer presets.
    public var presets: Set<String>
    /// Whether a timer session is running now.
    public var sessionRunning: Bool
    /// Paired devices by friendly name: a link's `device` may give the name the user
    /// knows instead of the id (an id always wins over a name).
    public var deviceNames: [String: DeviceID] = [:]
    private var hosts: Set<String>

    public init(
        pairedDevices: [DeviceID: Set<String>] = [:], presets: Set<String> = [], sessionRunning: Bool = false,
        universalLinkHosts: Set<String> = []
    ) {
        self.pairedDevices = pairedDevices
        self.presets = presets
        self.sessionRunning = sessionRunning
        self.hosts = Self.normalized(universalLinkHosts)
    }

    /// Hosts whose https links map onto the route table (`https://<host>/tuya/pair`),
    /// from the configuration. Host names compare without regard to ASCII case.
    public var universalLinkHosts: Set<String> {
        get { hosts }
        set { hosts = Self.normalized(newValue) }
    }

    /// Records `id` as paired with the maintenance types `profile` declares.
    public mutating func pair(_ id: DeviceID, profile: DeviceProfile) {
        pairedDevices[id] = Set(profile.maintenance.map(\.type))
    }

    /// The paired device a link's `device` value names: `text` itself when it is a paired
    /// id, else the device with that friendly name; nil for neither.
    func pairedDevice(named text: String) -> DeviceID? {
        if let id = DeviceID(text), pairedDevices[id] != nil { return id }
        return deviceNames[text]
    }

    /// Whether `host` (UTF-8 bytes, any ASCII case) is a configured universal-link host.
    func isUniversalLinkHost(_ host: UnsafeBufferPointer<UInt8>) -> Bool {
        hosts.contains { candidate in
            candidate.utf8.count == host.count
                && zip(candidate.utf8, host).allSatisfy { $0 == ASCII.lowercased($1) }
        }
    }

    private static func normalized(_ hosts: Set<String>) -> Set<String> {
        Set(hosts.map { String(decoding: $0.utf8.map(ASCII.lowercased), as: UTF8.self) })
    }
}
