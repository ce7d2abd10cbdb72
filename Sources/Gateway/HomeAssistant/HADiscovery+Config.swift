import TuyaCore

extension HADiscovery {
    /// One device-based discovery config (`<prefix>/device/<object id>/config`): the device
    /// block, the origin, the availability every component shares, and the components by key.
    public struct Config: Codable, Hashable, Sendable {
        public var device: DeviceBlock
        public var origin: Origin
        /// Absent on the gateway's own config (see `bridgeMessage()`).
        public var availability: [Availability]?
        public var availabilityMode: String?
        public var components: [String: Component]

        enum CodingKeys: String, CodingKey {
            case device, origin, availability, components
            case availabilityMode = "availability_mode"
        }
    }

    /// The `device` block: who the entities belong to in Home Assistant's device registry.
    public struct DeviceBlock: Codable, Hashable, Sendable {
        public var identifiers: [String]
        public var name: String
        public var manufacturer: String
        public var model: String
        public var modelID: String?
        public var viaDevice: String?
        public var softwareVersion: String?

        enum CodingKeys: String, CodingKey {
            case identifiers, name, manufacturer, model
            case modelID = "model_id"
            case viaDevice = "via_device"
            case softwareVersion = "sw_version"
        }
    }

    /// The `origin` block: the software that publishes the config.
    public struct Origin: Codable, Hashable, Sendable {
        public var name: String
        public var softwareVersion: String

        enum CodingKeys: String, CodingKey {
            case name
            case softwareVersion = "sw_version"
        }
    }

    /// One availability topic; the bridge API's payloads are `{"state":"online"}` / `{"state":"offline"}`.
    public struct Availability: Codable, Hashable, Sendable {
        public var topic: String
        public var valueTemplate = "{{ value_json.state }}"

        enum CodingKeys: String, CodingKey {
            case topic
            case valueTemplate = "value_template"
        }
    }

    /// One entity: Home Assistant's MQTT discovery schema is one flat set of keys shared by
    /// every platform, so is this. A nil field is left out of the config; `name` is always
    /// there, `null` for an entity named after its device.
    public struct Component: Codable, Hashable, Sendable {
        public var platform: String
        @NullWhenAbsent public var name: String?
        public var uniqueID: String
        public var icon: String?
        public var deviceClass: String?
        public var entityCategory: String?
        public var enabledByDefault: Bool?
        public var unitOfMeasurement: String?
        public var stateClass: String?
        public var schema: String?
        /// Its own availability, replacing the config's shared one.
        public var availability: [Availability]?

        public var stateTopic: String?
        public var valueTemplate: String?
        public var stateValueTemplate: String?
        public var commandTopic: String?
        public var commandTemplate: String?
        public var payloadOn: String?
        public var payloadOff: String?
        public var payloadPress: String?
        public var jsonAttributesTopic: String?
        public var jsonAttributesTemplate: String?
        public var options: [String]?

        public var presetModes: [String]?
        public var presetModeStateTopic: String?
        public var presetModeValueTemplate: String?
        public var presetModeCommandTopic: String?
        public var presetModeCommandTemplate: String?

        public var brightness: Bool?
        public var brightnessScale: Int?
        public var brightnessStateTopic: String?
        public var brightnessValueTemplate: String?
        public var brightnessCommandTopic: String?
        public var brightnessCommandTemplate: String?
        public var hsStateTopic: String?
        public var hsValueTemplate: String?
        public var hsCommandTopic: String?
        public var hsCommandTemplate: String?
        public var supportedColorModes: [String]?
        public var colorTempKelvin: Bool?
        public var minKelvin: Int?
        public var maxKelvin: Int?
        public var effect: Bool?
        public var effectList: [String]?
        public var flash: Bool?
        public var transition: Bool?

        /// QoS 1 for every component's subscriptions and commands, as the bridge API uses.
        /// Set per component: `qos` is shared from the device level only since Home Assistant 2026.x.
        public var qos = 1

        public init(platform: String, name: String?, uniqueID: String) {
            self.platform = platform
            self.name = name
            self.uniqueID = uniqueID
        }

        enum CodingKeys: String, CodingKey {
            case platform, name, icon, schema, availability, options, brightness, effect, flash, transition, qos
            case uniqueID = "unique_id"
            case deviceClass = "device_class"
            case entityCategory = "entity_category"
            case enabledByDefault = "enabled_by_default"
            case unitOfMeasurement = "unit_of_measurement"
            case stateClass = "state_class"
            case stateTopic = "state_topic"
            case valueTemplate = "value_template"
            case stateValueTemplate = "state_value_template"
            case commandTopic = "command_topic"
            case commandTemplate = "command_template"
            case payloadOn = "payload_on"
            case payloadOff = "payload_off"
            case payloadPress = "payload_press"
            case jsonAttributesTopic = "json_attributes_topic"
            case jsonAttributesTemplate = "json_attributes_template"
            case presetModes = "preset_modes"
            case presetModeStateTopic = "preset_mode_state_topic"
            case presetModeValueTemplate = "preset_mode_value_template"
            case presetModeCommandTopic = "preset_mode_command_topic"
            case presetModeCommandTemplate = "preset_mode_command_template"
            case brightnessScale = "brightness_scale"
            case brightnessStateTopic = "brightness_state_topic"
            case brightnessValueTemplate = "brightness_value_template"
            case brightnessCommandTopic = "brightness_command_topic"
            case brightnessCommandTemplate = "brightness_command_template"
            case hsStateTopic = "hs_state_topic"
            case hsValueTemplate = "hs_value_template"
            case hsCommandTopic = "hs_command_topic"
            case hsCommandTemplate = "hs_command_template"
            case supportedColorModes = "supported_color_modes"
            case colorTempKelvin = "color_temp_kelvin"
            case minKelvin = "min_kelvin"
            case maxKelvin = "max_kelvin"
            case effectList = "effect_list"
        }
    }
}
