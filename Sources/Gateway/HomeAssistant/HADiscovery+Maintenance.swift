import TuyaCore

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
        -> [String: Component]
    {
        let topic = maintenanceTopic(device.name)
        let gatewayOnly = [Availability(topic: topics.state)]
        var components: [String: Component] = [:]
        for rule in profile.maintenance {
            let key = "maintenance_" + rule.type.replacingOccurrences(of: "-", with: "_")
            // An empty payload (the topic cleared by a rename or removal) leaves `value_json`
            // undefined: read it as no reminders, not as a template error.
            let lookup =
                "((value_json if value_json is defined else []) | selectattr('type', 'eq', '\(rule.type)') | first | default({}, true))"
            var remaining = Component(
                platform: "sensor", name: "\(rule.title): remaining", uniqueID: entity.uniqueID(key + "_remaining"))
            remaining.icon = "mdi:progress-wrench"
            remaining.unitOfMeasurement = "%"
            remaining.stateClass = "measurement"
            remaining.stateTopic = topic
            remaining.valueTemplate = "{{ \(lookup).get('percent_remaining') }}"
            remaining.availability = gatewayOnly
            components[key + "_remaining"] = remaining

            var nextDue = Component(
                platform: "sensor", name: "\(rule.title): next due", uniqueID: entity.uniqueID(key + "_next_due"))
            nextDue.deviceClass = "timestamp"
            nextDue.stateTopic = topic
            nextDue.valueTemplate = "{{ \(lookup).get('next_due') }}"
            nextDue.availability = gatewayOnly
            components[key + "_next_due"] = nextDue

            var done = Component(
                platform: "button", name: "\(rule.title): mark done", uniqueID: entity.uniqueID(key + "_done"))
            done.icon = "mdi:check-circle-outline"
            done.entityCategory = "config"
            done.enabledByDefault = false
            done.commandTopic = topics.request("maintenance/done")
            done.availability = gatewayOnly
            done.payloadPress = BridgeJSON.text(BridgeJSON.value(MarkDone(device: device.name, type: rule.type)))
            components[key + "_done"] = done
        }
        return components
    }
}

/// The `maintenance/done` request a "mark done" button publishes.
private struct MarkDone: Encodable {
    var device: String
    var type: String
}
