import TuyaCore

/// `<base>/bridge/info` (retained): what is useful to see about the gateway, nothing secret
/// (the broker address is shown without its username or password), and the public key
/// local keys are sealed to. The daemon fills in the settings; the bridge adds the
/// pairing window's state each time it publishes.
public struct BridgeInfo: Codable, Hashable, Sendable {
    @NullWhenAbsent public var bleAdapter: String?
    public var version: String
    @NullWhenAbsent public var publicKey: String?
    public var keySealing = "hpke-x25519-sha256-chacha20poly1305"
    public var auth: Bool
    public var config: Settings
    /// Set by the bridge when it publishes.
    public var permitJoin: Bool?
    /// Seconds the pairing window stays open; only while it is.
    public var permitJoinTimeout: Int64?

    /// The configuration, as far as it is safe to show.
    public struct Settings: Codable, Hashable, Sendable {
        enum CodingKeys: String, CodingKey {
            case mqtt, ble, lan
            case baseTopic = "base_topic"
            case stateDirectory = "state_directory"
            case logLevel = "log_level"
            case permitJoinDefaultSeconds = "permit_join_default_seconds"
        }

        public var baseTopic: String
        public var mqtt: String
        public var stateDirectory: String
        public var ble: String
        public var lan: String
        public var logLevel: String
        public var permitJoinDefaultSeconds: Int64

        public init(
            baseTopic: String, mqtt: String, stateDirectory: String, ble: String, lan: String, logLevel: String,
            permitJoinDefaultSeconds: Int64
        ) {
            self.baseTopic = baseTopic
            self.mqtt = mqtt
            self.stateDirectory = stateDirectory
            self.ble = ble
            self.lan = lan
            self.logLevel = logLevel
            self.permitJoinDefaultSeconds = permitJoinDefaultSeconds
        }
    }

    public init(bleAdapter: String?, version: String, publicKey: String?, auth: Bool, config: Settings) {
        self.bleAdapter = bleAdapter
        self.version = version
        self.publicKey = publicKey
        self.auth = auth
        self.config = config
    }

    enum CodingKeys: String, CodingKey {
        case version, auth, config
        case bleAdapter = "ble_adapter"
        case publicKey = "public_key"
        case keySealing = "key_sealing"
        case permitJoin = "permit_join"
        case permitJoinTimeout = "permit_join_timeout"
    }
}
