import TuyaCore
import Yams

/// The YAML layer. The file is walked with TuyaCore's `ProfileNode`, the same strict reader as
/// device profiles: scalars are taken as written (`0x10` is not 16), and every error carries the
/// key path and line. Switches are the exception: `on`/`off`, `true`/`false` and `yes`/`no` all
/// work, as they do in the `YOULL_*` variables. The file may be edited by anyone with access to `/etc`
/// and is treated as untrusted: size cap, no anchors or aliases, the parser's nesting limit.
extension ConfigurationDraft {
    static let sections: [String: [String]] = [
        "mqtt": ["url", "username", "password", "ca_file", "client_cert", "client_key", "client_id", "keepalive"],
        "profiles": ["installed", "user"],
        "ble": ["enabled", "adapter", "max_connections", "transport"],
        "lan": lanKeys,
        "bridge": bridgeKeys,
        "home_assistant": ["enabled", "prefix"],
        "metrics": ["enabled", "listen"],
        "devices": ["frame_gap", "confirmation_timeout", "query_interval", "reapply_within"],
        "deep_links": ["universal_link_hosts"],
        "permit_join": ["default_timeout"],
        "maintenance": maintenanceKeys,
        "timer": timerKeys,
    ]
    static let topLevelKeys = ["base_topic", "state_directory", "log_level"] + sections.keys.sorted()

    mutating func parse(yaml: String, source: String) throws(ConfigurationError) {
        do {
            guard let root = try Self.compose(yaml: yaml, source: source) else { return }
            try read(root)
        } catch {
            throw ConfigurationError(
                source: error.source, keyPath: error.keyPath, line: error.line, reason: error.reason)
        }
    }

    /// Guards the parser against hostile text, then composes at most one document; nil when empty.
    static func compose(yaml: String, source: String) throws(ProfileError) -> ProfileNode? {
        let size = yaml.utf8.count
        guard size <= ConfigurationLoader.maximumSize else {
            throw ProfileError(
                source: source,
                reason: "file is \(size) bytes; a configuration is limited to \(ConfigurationLoader.maximumSize) bytes")
        }
        if let finding = YAMLAliasScreen.firstAnchorOrAlias(in: yaml) {
            throw ProfileError(
                source: source, line: finding.line,
                reason: "YAML \(finding.isAnchor ? "anchors (&name)" : "aliases (*name)") are not allowed in the "
                    + "configuration; write the value out")
        }
        do {
            return try ProfileNode.compose(yaml: yaml).map { ProfileNode(node: $0, path: "", source: source) }
        } catch let error as YamlError {
            throw ProfileError(yamlError: error, source: source)
        } catch {
            throw ProfileError(source: source, reason: "not valid YAML: \(error)")
        }
    }

    private mutating func read(_ root: ProfileNode) throws(ProfileError) {
        let top = try root.keys(Self.topLevelKeys)
        if let node = top.optional("base_topic") { set(\.baseTopic, try node.topic(what: "base topic"), node) }
        if let node = top.optional("state_directory") {
            set(\.stateDirectory, try node.checked(ConfigurationValue.absolutePath), node)
        }
        if let node = top.optional("log_level") {
            set(\.logLevel, try node.choice(as: GatewayConfiguration.LogLevel.self, what: "log level"), node)
        }
        if let node = top.optional("mqtt") { try readMQTT(node) }
        if let section = try top.optional("profiles")?.keys(Self.sections["profiles"]!) {
            if let node = section.optional("installed") {
                set(\.profiles.installed, try node.checked(ConfigurationValue.absolutePath), node)
            }
            if let node = section.optional("user") {
                set(\.profiles.user, try node.checked(ConfigurationValue.absolutePath), node)
            }
        }
        if let section = try top.optional("ble")?.keys(Self.sections["ble"]!) {
            if let node = section.optional("enabled") {
                set(\.ble.mode, try node.checked(ConfigurationValue.bleMode), node)
            }
            if let node = section.optional("adapter") {
                set(\.ble.adapter, try node.checked(ConfigurationValue.bluetoothAdapter), node)
            }
            if let node = section.optional("max_connections") {
                set(\.ble.maxConnections, try node.int(in: 1...16, what: "connection count"), node)
            }
            if let node = section.optional("transport") {
                set(\.ble.transport, try node.checked(ConfigurationValue.bleTransport), node)
            }
        }
        if let node = top.optional("lan") { try readLAN(node) }
        if let node = top.optional("bridge") { try readBridge(node) }
        if let section = try top.optional("home_assistant")?.keys(Self.sections["home_assistant"]!) {
            if let node = section.optional("enabled") { set(\.homeAssistant.enabled, try node.switchValue(), node) }
            if let node = section.optional("prefix") {
                set(\.homeAssistant.prefix, try node.topic(what: "discovery prefix"), node)
            }
        }
        if let section = try top.optional("metrics")?.keys(Self.sections["metrics"]!) {
            if let node = section.optional("enabled") { set(\.metrics.enabled, try node.switchValue(), node) }
            if let node = section.optional("listen") {
                set(\.metrics.listen, try node.checked(ConfigurationValue.listenAddress), node)
            }
        }
        try readTimings(top)
        if let node = top.optional("maintenance") { try readMaintenance(node) }
        if let node = top.optional("timer") { try readTimer(node) }
    }

    private mutating func readMQTT(_ sectionNode: ProfileNode) throws(ProfileError) {
        let section = try sectionNode.keys(Self.sections["mqtt"]!)
        if let node = section.optional("url") {
            set(\.mqtt.broker, try node.checked(ConfigurationValue.brokerAddress), node)
        }
        if let node = section.optional("username") { set(\.mqtt.username, try node.string(), node) }
        if let node = section.optional("password") { set(\.mqtt.password, try node.string(), node) }
        if let node = section.optional("ca_file") {
            set(\.mqtt.caFile, try node.checked(ConfigurationValue.absolutePath), node)
        }
        if let node = section.optional("client_cert") {
            set(\.mqtt.clientCertificateFile, try node.checked(ConfigurationValue.absolutePath), node)
        }
        if let node = section.optional("client_key") {
            set(\.mqtt.clientKeyFile, try node.checked(ConfigurationValue.absolutePath), node)
        }
        if let node = section.optional("client_id") {
            set(\.mqtt.clientID, try node.checked(ConfigurationValue.clientID), node)
        }
        if let node = section.optional("keepalive") {
            // libmosquitto takes nothing under 5 s (it would use 5 s without a word).
            set(\.mqtt.keepalive, try node.duration(minimum: .seconds(5), maximum: .seconds(65535)), node)
        }
    }

    private mutating func readTimings(_ top: ProfileMapping) throws(ProfileError) {
        if let section = try top.optional("devices")?.keys(Self.sections["devices"]!) {
            if let node = section.optional("frame_gap") {
                set(\.devices.frameGap, try node.duration(allowZero: true, maximum: .seconds(60)), node)
            }
            if let node = section.optional("confirmation_timeout") {
                set(\.devices.confirmationTimeout, try node.duration(maximum: .seconds(600)), node)
            }
            if let node = section.optional("query_interval") {
                // Under a second, an idle device is asked again as soon as it answers.
                set(\.devices.queryInterval, try node.duration(minimum: .seconds(1), maximum: .seconds(86400)), node)
            }
            if let node = section.optional("reapply_within") {
                set(\.devices.reapplyWithin, try node.duration(maximum: .seconds(86400)), node)
            }
        }
        if let section = try top.optional("deep_links")?.keys(Self.sections["deep_links"]!),
            let node = section.optional("universal_link_hosts")
        {
            var hosts: [String] = []
            for item in try node.list() {
                let host = try item.checked(ConfigurationValue.hostName)
                guard !hosts.contains(host) else { throw item.error("host '\(host)' is listed twice") }
                hosts.append(host)
            }
            set(\.universalLinkHosts, hosts, node)
        }
        if let section = try top.optional("permit_join")?.keys(Self.sections["permit_join"]!),
            let node = section.optional("default_timeout")
        {
            // Announced in whole seconds: under one, the window would say 0 s.
            set(\.permitJoinTimeout, try node.duration(minimum: .seconds(1), maximum: .seconds(3600)), node)
        }
    }

    private mutating func set<Value>(
        _ keyPath: WritableKeyPath<GatewayConfiguration, Value>, _ value: Value, _ node: ProfileNode
    ) {
        configuration[keyPath: keyPath] = value
        origins[node.path] = ConfigurationOrigin(source: node.source, line: node.line)
    }
}

extension ProfileNode {
    /// The entries of a mapping whose keys must all be in `allowed`; an unknown key is named with
    /// its line and the closest known key, since most are typos (`max_conections`).
    func keys(_ allowed: [String]) throws(ProfileError) -> ProfileMapping {
        guard case .mapping(let mapping) = node else {
            throw error("expected a mapping of \(allowed.prefix(3).joined(separator: ", ")), …")
        }
        var entries: [(key: String, value: ProfileNode)] = []
        for (keyNode, valueNode) in mapping {
            guard case .scalar(let keyScalar) = keyNode else {
                throw error("mapping keys must be plain words, not lists or mappings")
            }
            let key = keyScalar.string
            let value = child(valueNode, key: key)
            guard allowed.contains(key) else {
                let keyed = ProfileNode(node: keyNode, path: value.path, source: source)
                throw keyed.error(
                    "unknown key '\(key.prefix(40))'\(KeySuggestion.hint(for: key, among: allowed)); expected one of: "
                        + allowed.joined(separator: ", "))
            }
            try refuseDuplicate(key, keyNode, in: entries)
            entries.append((key, value))
        }
        return ProfileMapping(owner: self, entries: entries)
    }

    /// A scalar run through one of `ConfigurationValue`'s checks.
    func checked<Value>(_ check: (String) throws(InvalidValue) -> Value) throws(ProfileError) -> Value {
        let text = try string()
        do {
            return try check(text)
        } catch {
            throw self.error(error.reason)
        }
    }

    /// A switch: `on`/`off`, `true`/`false`, `yes`/`no` (any case), as the `YOULL_*` variables take them.
    func switchValue() throws(ProfileError) -> Bool {
        try checked(ConfigurationDraft.requiredSwitch)
    }

    func topic(what: String) throws(ProfileError) -> String {
        try checked { text throws(InvalidValue) in try ConfigurationValue.baseTopic(text, what: what) }
    }

    func choice<Value: RawRepresentable & CaseIterable>(
        as type: Value.Type, what: String
    ) throws(ProfileError) -> Value where Value.RawValue == String {
        try checked { text throws(InvalidValue) in try ConfigurationValue.choice(text, as: type, what: what) }
    }

    func duration(allowZero: Bool = false, minimum: Duration? = nil, maximum: Duration) throws(ProfileError)
        -> Duration
    {
        try checked { text throws(InvalidValue) in
            try ConfigurationValue.duration(text, allowZero: allowZero, minimum: minimum, maximum: maximum)
        }
    }
}
