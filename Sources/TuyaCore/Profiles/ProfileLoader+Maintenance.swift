/// Parsing of `faults:`, `scenes:` and `maintenance:`, which refer back to capabilities.
extension ProfileLoader {
    static let maximumUsageHours = 100_000
    static let maximumDays = 3650

    static func faultLabels(
        _ node: ProfileNode, capabilities: [Capability: CapabilityBinding]
    ) throws(ProfileError) -> [FaultLabel] {
        let items = try node.list()
        guard !items.isEmpty else { return [] }
        guard capabilities[.fault] != nil else {
            throw node.error(
                "faults are declared but no DP is bound to the 'fault' capability; add 'fault: <bitmap DP>' under capabilities"
            )
        }
        var labels: [FaultLabel] = []
        for item in items {
            let entries = try item.mapping(allowed: ["bit", "label"])
            let bitNode = try entries.required("bit")
            let bit = try bitNode.int(in: 0...31, what: "fault bit")
            let labelNode = try entries.required("label")
            let label = try labelNode.string()
            guard isWord(label, first: isLower, rest: { isLowerOrDigit($0) || $0 == 0x5F }, maxLength: 64) else {
                throw labelNode.error(
                    "fault label '\(label.prefix(70))' must be lower-case letters, digits and '_', like water_shortage")
            }
            if let earlier = labels.firstIndex(where: { $0.label == label }) {
                throw labelNode.error("duplicate fault label '\(label)' (also at \(node.path)[\(earlier)])")
            }
            if let earlier = labels.firstIndex(where: { $0.bit == bit }) {
                throw bitNode.error("fault bit \(bit) is labelled twice (also at \(node.path)[\(earlier)])")
            }
            labels.append(FaultLabel(bit: bit, label: label))
        }
        return labels
    }

    /// `scenes: { night: "000e0d…" }` for a string scene DP, or `{ reading: read }` for an enum one.
    static func namedScenes(
        _ node: ProfileNode, capabilities: [Capability: CapabilityBinding], dataPoints: [DataPointSpec]
    ) throws(ProfileError) -> [NamedScene] {
        let entries = try node.namedEntries()
        guard !entries.isEmpty else { return [] }
        guard let binding = capabilities[.scene],
            let spec = dataPoints.first(where: { $0.id == binding.dataPoint })
        else {
            throw node.error(
                "scenes are declared but no DP is bound to the 'scene' capability; add 'scene: <DP>' under capabilities"
            )
        }
        var scenes: [NamedScene] = []
        for (name, valueNode) in entries {
            guard !name.isEmpty, name.count <= 64 else {
                throw valueNode.error("scene names are 1-64 characters")
            }
            let text = try valueNode.string()
            guard !text.isEmpty else { throw valueNode.error("a scene value must not be empty") }
            if spec.type == .enumeration {
                guard spec.values.contains(text) else {
                    throw valueNode.error(
                        "'\(text.prefix(40))' is not a value of \(spec.code): \(spec.values.joined(separator: ", "))")
                }
                scenes.append(NamedScene(name: name, value: .enumeration(text)))
            } else {
                scenes.append(NamedScene(name: name, value: .string(text)))
            }
        }
        return scenes
    }

    static func maintenanceRules(
        _ node: ProfileNode, faults: [FaultLabel], capabilities: [Capability: CapabilityBinding]
    ) throws(ProfileError) -> [MaintenanceRuleSpec] {
        var rules: [MaintenanceRuleSpec] = []
        for item in try node.list() {
            let entries = try item.mapping(allowed: ["type", "title", "triggers"])
            let typeNode = try entries.required("type")
            let type = try typeNode.string()
            guard isWord(type, first: isLower, rest: { isLowerOrDigit($0) || $0 == 0x2D }, maxLength: 32) else {
                throw typeNode.error(
                    "maintenance type '\(type.prefix(40))' must be 1-32 lower-case letters, digits and '-', starting with a letter"
                )
            }
            if let earlier = rules.firstIndex(where: { $0.type == type }) {
                throw typeNode.error("duplicate maintenance type '\(type)' (also at \(node.path)[\(earlier)])")
            }
            let title = try nonEmptyString(entries.required("title"))
            let triggersNode = try entries.required("triggers")
            let triggerItems = try triggersNode.list()
            guard !triggerItems.isEmpty else {
                throw triggersNode.error("a maintenance rule needs at least one trigger (fault, usage_hours or days)")
            }
            var triggers: [MaintenanceTrigger] = []
            for triggerNode in triggerItems {
                triggers.append(try trigger(triggerNode, faults: faults, capabilities: capabilities))
            }
            rules.append(MaintenanceRuleSpec(type: type, title: title, triggers: triggers))
        }
        return rules
    }

    /// One of `{ fault: label }`, `{ usage_hours: N, of: mist }`, `{ days: N }`.
    private static func trigger(
        _ node: ProfileNode, faults: [FaultLabel], capabilities: [Capability: CapabilityBinding]
    ) throws(ProfileError) -> MaintenanceTrigger {
        let entries = try node.mapping(allowed: ["fault", "usage_hours", "of", "days"])
        let kinds = ["fault", "usage_hours", "days"].filter(entries.has)
        guard kinds.count == 1, let kind = kinds.first else {
            throw node.error("a trigger has exactly one of fault, usage_hours or days, found \(kinds.count)")
        }
        if kind != "usage_hours", let ofNode = entries.optional("of") {
            throw ofNode.error("'of' belongs to a usage_hours trigger")
        }
        switch kind {
        case "fault":
            let labelNode = try entries.required("fault")
            let label = try labelNode.string()
            guard faults.contains(where: { $0.label == label }) else {
                let known = faults.isEmpty ? "none are declared" : faults.map(\.label).joined(separator: ", ")
                throw labelNode.error("fault '\(label.prefix(40))' is not declared under faults (\(known))")
            }
            return .fault(label: label)
        case "usage_hours":
            let hours = try entries.required("usage_hours").int(in: 1...maximumUsageHours, what: "usage_hours")
            let ofNode = try entries.required("of")
            let name = try ofNode.choice([Capability.mist.rawValue, Capability.power.rawValue], what: "usage source")
            let capability: Capability = name == Capability.mist.rawValue ? .mist : .power
            guard capabilities[capability] != nil else {
                throw ofNode.error(
                    "usage of '\(name)' is counted from its DP, but no DP is bound to '\(name)' under capabilities")
            }
            return .usageHours(hours, of: capability)
        default:
            return .days(try entries.required("days").int(in: 1...maximumDays, what: "days"))
        }
    }
}
