import BLELink
import Timing
import TuyaCore

/// Everything `youll-devices serve` is configured with, already validated.
///
/// Built by `ConfigurationLoader` from defaults, then the YAML file, then `YOULL_*` environment
/// variables; every field here has passed its checks, so the services that read it do not check
/// again. The MQTT password never appears in `description`, `debugDescription` or a mirror.
public struct GatewayConfiguration: Hashable, Sendable, CustomStringConvertible, CustomReflectable {
    public var mqtt: MQTT
    /// First level of every northbound topic (`youll/bridge/state`); one per gateway on a shared broker.
    public var baseTopic: String
    /// SQLite database and other state; absolute.
    public var stateDirectory: String
    public var profiles: ProfileFolders
    public var ble: BLE
    /// `lan:`: Tuya LAN protocol discovery and the 3.5 solicitation (GatewayConfiguration+LAN.swift).
    public var lan = LAN()
    /// `bridge:`: request signing and sealed keys on the bridge API (GatewayConfiguration+Bridge.swift).
    public var bridge = Bridge()
    public var homeAssistant: HomeAssistant
    public var metrics: Metrics
    public var logLevel: LogLevel
    public var devices: DeviceDefaults
    /// https hosts whose links are routed like `youll://` links (universal links), lower-cased.
    public var universalLinkHosts: [String]
    /// How long `permit_join` listens for new devices when the request names no time.
    public var permitJoinTimeout: Duration
    /// Maintenance reminders and where their alerts go.
    public var maintenance: Maintenance
    /// `timer:`: session presets, history and badges (GatewayConfiguration+Timer.swift).
    public var timer = Timer()

    public static let defaultBaseTopic = "youll"

    /// The documented defaults, with the directories that depend on where the gateway runs.
    public init(stateDirectory: String, profiles: ProfileFolders) {
        mqtt = MQTT()
        baseTopic = Self.defaultBaseTopic
        self.stateDirectory = stateDirectory
        self.profiles = profiles
        ble = BLE()
        homeAssistant = HomeAssistant()
        metrics = Metrics()
        logLevel = .info
        devices = DeviceDefaults()
        universalLinkHosts = []
        permitJoinTimeout = .seconds(120)
        maintenance = Maintenance()
    }

    /// Where device profiles are read from; the user folder overrides installed profiles of the same id.
    public struct ProfileFolders: Hashable, Sendable {
        /// Profiles shipped with the package (`devices/` of the repository).
        public var installed: String
        /// The user's own profiles.
        public var user: String

        public init(installed: String, user: String) {
            self.installed = installed
            self.user = user
        }
    }

    /// Bluetooth LE devices through BlueZ.
    public struct BLE: Hashable, Sendable {
        public enum Mode: String, CaseIterable, Hashable, Sendable {
            /// Use BLE when an adapter is present; carry on without it otherwise.
            case auto
            /// Refuse to start without a working adapter.
            case on
            case off
        }

        public var mode: Mode = .auto
        /// BlueZ adapter name (`hci0`).
        public var adapter: String = "hci0"
        /// Simultaneous LE links; controllers typically manage a handful before links drop.
        public var maxConnections: Int = 3
        /// How the controller is reached (`ble.transport`): BlueZ on `adapter` (the default), or
        /// the gateway's own HCI host on an adapter's user channel, a UART, or a TCP/UNIX socket.
        public var transport: BLETransportSetting = .bluez

        public init() {}
    }

    /// Home Assistant MQTT discovery.
    public struct HomeAssistant: Hashable, Sendable {
        public var enabled: Bool = true
        /// Discovery prefix configured in Home Assistant's MQTT integration.
        public var prefix: String = "homeassistant"

        public init() {}
    }

    /// The Prometheus text endpoint: on by default, on loopback only.
    public struct Metrics: Hashable, Sendable {
        public var enabled: Bool = true
        public var listen = ListenAddress(host: "127.0.0.1", port: 9464)

        public init() {}
    }

    /// A TCP listen address; IPv6 hosts are written `[::1]:9464`.
    public struct ListenAddress: Hashable, Sendable, CustomStringConvertible {
        public var host: String
        public var port: Int

        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }

        public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    public enum LogLevel: String, CaseIterable, Hashable, Sendable {
        case trace, debug, info, notice, warning, error, critical
    }

    /// Timing used for a device whose profile does not say otherwise.
    public struct DeviceDefaults: Hashable, Sendable {
        /// Pause between two frames to one device; cheap modules drop frames that come faster.
        public var frameGap: Duration = .milliseconds(Int64(DeviceProfile.defaultFrameGapMilliseconds))
        /// `frameGap` in the unit profiles give it (`frame_gap_ms`).
        public var frameGapMilliseconds: Int { Int(frameGap.wholeMilliseconds) }
        /// How long a command stays pending before it counts as unconfirmed.
        public var confirmationTimeout: Duration = .seconds(5)
        /// How often an idle device is asked for all its data points.
        public var queryInterval: Duration = .seconds(60)
        /// How long a command the device did not confirm is still applied when it returns;
        /// after that it is dropped, so a light never switches on hours after it was asked.
        public var reapplyWithin: Duration = .seconds(120)

        public init() {}
    }

    public var description: String {
        "GatewayConfiguration(mqtt: \(mqtt), base topic: \(baseTopic), state: \(stateDirectory), "
            + "profiles: \(profiles.installed) + \(profiles.user), ble: \(ble.mode.rawValue) on "
            + (ble.transport == .bluez ? ble.adapter : ble.transport.description) + " "
            + "(max \(ble.maxConnections)), lan: \(lan), home assistant: "
            + (homeAssistant.enabled ? homeAssistant.prefix : "off") + ", metrics: "
            + (metrics.enabled ? "\(metrics.listen)" : "off") + ", log level: \(logLevel.rawValue))"
    }

    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "mqtt": mqtt, "baseTopic": baseTopic, "stateDirectory": stateDirectory, "profiles": profiles,
                "ble": ble, "lan": lan, "bridge": bridge, "homeAssistant": homeAssistant, "metrics": metrics,
                "logLevel": logLevel,
                "devices": devices, "universalLinkHosts": universalLinkHosts, "permitJoinTimeout": permitJoinTimeout,
                "maintenance": maintenance,
            ],
            displayStyle: .struct)
    }
}
