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

    static let maintenanceRuleKeys = [
        "type", "title", "body", "steps", "triggers", "due_soon_at", "reset_dp", "reset_value",
    ]
    static let maximumBodyLength = 1000
    static let maximumSteps = 20
    static let maximumStepLength = 300

    static func maintenanceRules(
        _ node: ProfileNode, faults: [FaultLabel], capabilities: [Capability: CapabilityBinding],
        dataPoints: [DataPointSpec]
    ) throws(ProfileError) -> [MaintenanceRuleSpec] {
        var rules: [MaintenanceRuleSpec] = []
        for item in try node.list() {
            let entries = try item.mapping(allowed: maintenanceRuleKeys)
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
            let body = try maintenanceBody(entries.required("body"))
            let steps =
                try entries.optional("steps").map { node throws(ProfileError) in try maintenanceSteps(node) } ?? []
            let triggersNode = try entries.required("triggers")
            let triggerItems = try triggersNode.list()
            guard !triggerItems.isEmpty else {
                throw triggersNode.error("a maintenance rule needs at least one trigger (fault, usage_hours or days)")
            }
            var triggers: [MaintenanceTrigger] = []
            for triggerNode in triggerItems {
                triggers.append(try trigger(triggerNode, faults: faults, capabilities: capabilities))
            }
            var share = MaintenanceRuleSpec.defaultDueSoonShare
            if let shareNode = entries.optional("due_soon_at") {
                share = try dueSoonShare(shareNode)
                guard triggers.contains(where: { if case .fault = $0 { false } else { true } }) else {
                    throw shareNode.error(
                        "due_soon_at applies to usage_hours and days triggers; this rule has only fault triggers")
                }
            }
            let reset = try maintenanceReset(entries, dataPoints: dataPoints)
            rules.append(
                MaintenanceRuleSpec(
                    type: type, title: title, body: body, steps: steps, triggers: triggers, dueSoonShare: share,
                    reset: reset))
        }
        return rules
    }

    /// Text shown under the title: trimmed, at most `maximumBodyLength` characters, line
    /// breaks allowed (a YAML block scalar) but no other control characters, since it
    /// travels into logs, MQTT payloads and terminals.
    private static func maintenanceBody(_ node: ProfileNode) throws(ProfileError) -> String {
        let text = try nonEmptyString(node).trimmingWhitespace()
        guard text.count <= maximumBodyLength else {
            throw node.error("body is \(text.count) characters; at most \(maximumBodyLength)")
        }
        guard !text.unicodeScalars.contains(where: { isControl($0) && $0 != "\n" }) else {
            throw node.error("body must not contain control characters other than line breaks")
        }
        return text
    }

    /// `steps: [...]`: one line each, in order.
    private static func maintenanceSteps(_ node: ProfileNode) throws(ProfileError) -> [String] {
        let items = try node.list()
        guard items.count <= maximumSteps else {
            throw node.error("\(items.count) steps; at most \(maximumSteps)")
        }
        var steps: [String] = []
        for item in items {
            let step = try nonEmptyString(item).trimmingWhitespace()
            guard step.count <= maximumStepLength else {
                throw item.error("a step is at most \(maximumStepLength) characters, found \(step.count)")
            }
            guard !step.unicodeScalars.contains(where: isControl) else {
                throw item.error("a step is one line without control characters; split it into several steps")
            }
            steps.append(step)
        }
        return steps
    }

    /// `due_soon_at: 0.8`: a plain decimal strictly between 0 and 1, written `0.` and 1-4 digits.
    private static func dueSoonShare(_ node: ProfileNode) throws(ProfileError) -> Double {
        let text = try node.string()
        let bytes = Array(text.utf8)
        let isDecimal =
            bytes.count >= 3 && bytes.count <= 6 && bytes[0] == 0x30 && bytes[1] == 0x2E
            && bytes.dropFirst(2).allSatisfy { (0x30...0x39).contains($0) }
        guard case .scalar(let scalar) = node.node, scalar.style == .plain, isDecimal, let share = Double(text),
            share > 0
        else {
            throw node.error(
                "due_soon_at must be a decimal between 0 and 1 (exclusive), like 0.8; found '\(text.prefix(40))'")
        }
        return share
    }

    /// `reset_dp` (a writable DP, by code or id) and `reset_value` (fitting its type) come together.
    private static func maintenanceReset(
        _ entries: ProfileMapping, dataPoints: [DataPointSpec]
    ) throws(ProfileError) -> MaintenanceReset? {
        guard let dpNode = entries.optional("reset_dp") else {
            if let valueNode = entries.optional("reset_value") {
                throw valueNode.error("reset_value needs reset_dp, the DP it is written to")
            }
            return nil
        }
        let spec: DataPointSpec
        if case .scalar(let scalar) = dpNode.node, scalar.style == .plain, let number = Int(scalar.string) {
            guard let found = dataPoints.first(where: { $0.id.intValue == number }) else {
                throw dpNode.error("no data point with id \(number); declare it under data_points")
            }
            spec = found
        } else {
            let code = try dpNode.string()
            guard let found = dataPoints.first(where: { $0.code == code }) else {
                throw dpNode.error("no data point with code '\(code.prefix(40))'; declare it under data_points")
            }
            spec = found
        }
        guard spec.access != .readOnly else {
            throw dpNode.error(
                "\(spec.code) (DP\(spec.id.intValue)) is read-only; a reset is written to a DP with access rw or wo")
        }
        let valueNode = try entries.required("reset_value")
        switch spec.type {
        case .bool:
            return MaintenanceReset(dataPoint: spec.id, value: .bool(try valueNode.bool()))
        case .value:
            let value = try valueNode.int()
            guard let range = spec.range, let raw = Int32(exactly: value), range.contains(raw) else {
                let bounds = spec.range.map { "\($0.lowerBound)...\($0.upperBound)" } ?? "the DP's range"
                throw valueNode.error("reset_value \(value) is outside \(bounds) of \(spec.code)")
            }
            return MaintenanceReset(dataPoint: spec.id, value: .value(raw))
        case .enumeration:
            let label = try valueNode.string()
            guard spec.values.contains(label) else {
                throw valueNode.error(
                    "reset_value '\(label.prefix(40))' is not one of the values of \(spec.code): \(spec.values.joined(separator: ", "))"
                )
            }
            return MaintenanceReset(dataPoint: spec.id, value: .enumeration(label))
        case .string, .raw, .bitmap:
            throw dpNode.error(
                "a reset DP is bool, value or enum, but \(spec.code) (DP\(spec.id.intValue)) is \(spec.type.name)")
        }
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
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

extension String {
    /// Without leading and trailing spaces, tabs and line breaks (a YAML block scalar ends in one).
    fileprivate func trimmingWhitespace() -> String {
        var view = Substring(self)
        while let first = view.first, first.isWhitespace { view.removeFirst() }
        while let last = view.last, last.isWhitespace { view.removeLast() }
        return String(view)
    }
}
