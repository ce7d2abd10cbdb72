import TuyaCore

/// Home Assistant's MQTT discovery messages for the gateway and its devices: pure, so the
/// payloads are tested against fixtures without a broker.
///
/// Device-based discovery (Home Assistant 2024.11+): one retained
/// `<prefix>/device/<object id>/config` per device, holding the device block, the origin,
/// the shared availability and every entity as a component. Object ids and unique ids come
/// from device ids, never names, so a rename keeps the entities and their history.
///
/// Every topic an entity reads or writes is a bridge API topic (README "The MQTT bridge
/// API"): states come from the retained `<base>/<name>` JSON, commands go to
/// `<base>/<name>/set` as the bridge API's JSON, so Home Assistant drives a device through
/// the same typed command path (`DeviceSetPayload`) as any other client.
public struct HADiscovery: Hashable, Sendable {
    /// Where discovery is published and what it says about the gateway.
    public struct Settings: Hashable, Sendable {
        /// The discovery prefix (`home_assistant.prefix`, default `homeassistant`).
        public var prefix: String
        /// The gateway's version, published in the origin and the gateway's device block.
        public var version: String
        /// The "Permit pairing" button; off when `bridge.auth` is on, since Home Assistant
        /// cannot sign the `permit_join` request it sends.
        public var permitJoinButton = true

        public init(prefix: String, version: String) {
            self.prefix = prefix
            self.version = version
        }
    }

    /// One retained discovery message: a `Config` as the JSON the bridge publishes.
    public struct Message: Hashable, Sendable {
        public var topic: String
        public var payload: JSONValue
    }

    public let settings: Settings
    public let topics: BridgeTopics

    public init(settings: Settings, topics: BridgeTopics) {
        self.settings = settings
        self.topics = topics
    }

    /// Home Assistant's birth and last-will topic: `online` there asks for a republish.
    public var statusTopic: String { settings.prefix + "/status" }

    /// The base topic as an id part (`youll`, or `home_a_youll` for `home/a/youll`), so two
    /// gateways on one broker under different base topics never share an id.
    var idPrefix: String {
        String(topics.base.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") ? $0 : "_" })
    }

    /// The gateway's object id and device identifier: `youll_bridge`.
    public var bridgeObjectID: String { idPrefix + "_bridge" }

    /// A device's object id and device identifier: `youll_<device id>`. Device ids are
    /// letters, digits, `_` and `-`, which is what Home Assistant allows in an object id.
    public func objectID(for id: DeviceID) -> String { idPrefix + "_" + id.rawValue }

    public func configTopic(objectID: String) -> String { settings.prefix + "/device/" + objectID + "/config" }

    /// The bridge API topic a device's maintenance reminders are published on, retained.
    func maintenanceTopic(_ name: String) -> String { topics.maintenance(name) }

    // MARK: - Devices

    /// The discovery message of one paired device, with the components its profile supports.
    public func message(for device: TuyaDevice, profile: DeviceProfile) -> Message {
        Message(
            topic: configTopic(objectID: objectID(for: device.id)),
            payload: BridgeJSON.value(config(for: device, profile: profile)))
    }

    /// The discovery config of one paired device.
    public func config(for device: TuyaDevice, profile: DeviceProfile) -> Config {
        let objectID = objectID(for: device.id)
        let entities = EntityContext(
            uniquePrefix: objectID, state: topics.device(device.name), command: topics.set(device.name))
        var components: [String: Component] = [:]
        switch profile.category {
        case .light: components.merge(lightComponents(profile, entities), uniquingKeysWith: { $1 })
        case .diffuser: components.merge(diffuserComponents(profile, entities), uniquingKeysWith: { $1 })
        }
        components.merge(maintenanceComponents(profile, device: device, entities), uniquingKeysWith: { $1 })
        let block = DeviceBlock(
            identifiers: [objectID], name: device.name, manufacturer: profile.manufacturer ?? "Tuya",
            model: profile.name, modelID: profile.model, viaDevice: bridgeObjectID)
        return Config(
            device: block, origin: origin,
            // Shared by every component: an entity is available only while the bridge is
            // online and the device itself answers.
            availability: [Availability(topic: topics.state), Availability(topic: topics.availability(device.name))],
            availabilityMode: "all", components: components)
    }

    // MARK: - The gateway

    /// The gateway as a device: its connection to the broker and a "permit pairing" button.
    public func bridgeMessage() -> Message {
        Message(topic: configTopic(objectID: bridgeObjectID), payload: BridgeJSON.value(bridgeConfig()))
    }

    /// The gateway's discovery config.
    public func bridgeConfig() -> Config {
        let id = bridgeObjectID
        let block = DeviceBlock(
            identifiers: [id],
            name: topics.base == "youll" ? "youll-devices bridge" : "youll-devices bridge (\(topics.base))",
            manufacturer: "youll-devices", model: "youll-devices gateway", softwareVersion: settings.version)
        // No availability: it must read "disconnected" (not "unavailable") when the
        // broker delivers the bridge's last will.
        var connection = Component(platform: "binary_sensor", name: "Connection", uniqueID: id + "_connection")
        connection.deviceClass = "connectivity"
        connection.entityCategory = "diagnostic"
        connection.stateTopic = topics.state
        connection.valueTemplate = "{{ value_json.state }}"
        connection.payloadOn = "online"
        connection.payloadOff = "offline"
        var components = ["connection": connection]
        if settings.permitJoinButton {
            var permitJoin = Component(platform: "button", name: "Permit pairing", uniqueID: id + "_permit_join")
            permitJoin.icon = "mdi:link-plus"
            permitJoin.entityCategory = "config"
            permitJoin.commandTopic = topics.request("permit_join")
            permitJoin.payloadPress = #"{"value":true}"#
            permitJoin.availability = [Availability(topic: topics.state)]
            components["permit_join"] = permitJoin
        }
        return Config(device: block, origin: origin, components: components)
    }

    // MARK: - Shared parts

    var origin: Origin { Origin(name: "youll-devices", softwareVersion: settings.version) }
}

/// The topics and id prefix every component of one device shares.
struct EntityContext {
    /// `youll_<device id>`; a component's unique id is this plus `_<key>`.
    var uniquePrefix: String
    /// `<base>/<name>`: the device's retained JSON state.
    var state: String
    /// `<base>/<name>/set`: the bridge API's command topic.
    var command: String

    func uniqueID(_ key: String) -> String { uniquePrefix + "_" + key }
}
