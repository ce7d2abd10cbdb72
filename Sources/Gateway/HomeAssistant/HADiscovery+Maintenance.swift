import TuyaCore
import TuyaWire

extension HADiscovery {
    /// Three entities per maintenance rule of the profile: "% remaining", "next due" and a
    /// "mark done" button.
    ///
    /// The sensors read `<base>/<name>/maintenance`, retained, which the maintenance part of
    /// the gateway publishes (`MaintenanceJSON.reminder`, one object per rule; `next_due`
    /// may be null, e.g. for a rule that only a fault triggers):
    ///
    ///     [{"type": "refill", "state": "due", "percent_remaining": 0,
    ///       "next_due": "2026-05-01T09:00:00Z", …}, …]
    ///
    /// Templates pick the rule's entry with `selectattr` and read fields with `get`, so a
    /// missing rule or field, or an empty payload, renders `None` (unknown in Home
    /// Assistant) rather than a template error.
    ///
    /// The button publishes `{"device":"<name>","type":"<type>"}` on
    /// `<base>/bridge/request/maintenance/done`. It resets the rule's counters, so it is a
    /// configuration entity and disabled until the user enables it.
    ///
    /// These entities follow the gateway only, not the device: the steps say to unplug
    /// the diffuser, and its reminders and "mark done" must stay usable while it is.
    /// (A component's own `availability` replaces the device-level one.)
    func maintenanceComponents(_ profile: DeviceProfile, device: TuyaDevice, _ entity: EntityContext)
        -> [String: JSONValue]
    {
        let topic = maintenanceTopic(device.name)
        let gatewayOnly: JSONValue = .array([availability(topics.state)])
        var components: [String: JSONValue] = [:]
        for rule in profile.maintenance {
            let key = "maintenance_" + rule.type.replacingOccurrences(of: "-", with: "_")
            // An empty payload (the topic cleared by a rename or removal) leaves `value_json`
            // undefined: read it as no reminders, not as a template error.
            let lookup =
                "((value_json if value_json is defined else []) | selectattr('type', 'eq', '\(rule.type)') | first | default({}, true))"
            components[key + "_remaining"] = .object([
                "platform": .string("sensor"),
                "name": .string("\(rule.title): remaining"),
                "unique_id": entity.uniqueID(key + "_remaining"),
                "icon": .string("mdi:progress-wrench"),
                "unit_of_measurement": .string("%"),
                "state_class": .string("measurement"),
                "state_topic": .string(topic),
                "value_template": .string("{{ \(lookup).get('percent_remaining') }}"),
                "availability": gatewayOnly,
            ])
            components[key + "_next_due"] = .object([
                "platform": .string("sensor"),
                "name": .string("\(rule.title): next due"),
                "unique_id": entity.uniqueID(key + "_next_due"),
                "device_class": .string("timestamp"),
                "state_topic": .string(topic),
                "value_template": .string("{{ \(lookup).get('next_due') }}"),
                "availability": gatewayOnly,
            ])
            components[key + "_done"] = .object([
                "platform": .string("button"),
                "name": .string("\(rule.title): mark done"),
                "unique_id": entity.uniqueID(key + "_done"),
                "icon": .string("mdi:check-circle-outline"),
                "entity_category": .string("config"),
                "enabled_by_default": .bool(false),
                "command_topic": .string(topics.request("maintenance/done")),
                "availability": gatewayOnly,
                "payload_press": .string(
                    String(
                        decoding: CompactJSON.encode(
                            .object(["device": .string(device.name), "type": .string(rule.type)])),
                        as: UTF8.self)),
            ])
        }
        return components
    }
}
