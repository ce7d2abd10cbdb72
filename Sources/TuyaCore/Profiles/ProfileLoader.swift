import Yams

/// Turns the text of one `devices/*.yaml` file into a validated `DeviceProfile`.
///
/// Pure: no file access, no global state. The text may come from a user folder, so it
/// is treated as untrusted: size is capped before parsing, anchors and aliases are
/// refused (see `YAMLAliasScreen`), and every rule of the schema in `devices/README.md`
/// is checked here so that the rest of the gateway can rely on a profile's DP ids,
/// types and ranges without checking again.
public enum ProfileLoader {
    /// Profiles are a few kilobytes; anything past this is refused before parsing.
    public static let maximumSize = 256 * 1024

    static let topLevelKeys = [
        "id", "name", "manufacturer", "model", "category", "product_ids", "transports", "frame_gap_ms",
        "ble", "data_points", "capabilities", "scenes", "faults", "maintenance",
    ]

    /// Parses and validates one profile. `source` names the file in errors.
    /// `defaultFrameGap`: the frame gap of a profile without `frame_gap_ms` (the configuration's
    /// `devices.frame_gap`, in milliseconds).
    public static func parse(
        yaml: String, source: String, defaultFrameGap: Int = DeviceProfile.defaultFrameGapMilliseconds
    ) throws(ProfileError)
        -> DeviceProfile
    {
        let root = try compose(yaml: yaml, source: source)
        let top = try root.mapping(allowed: topLevelKeys)

        let id = try profileID(top.required("id"))
        let name = try nonEmptyString(top.required("name"))
        let manufacturer = try top.optional("manufacturer").map { node throws(ProfileError) in try nonEmptyString(node)
        }
        let model = try top.optional("model").map { node throws(ProfileError) in try nonEmptyString(node) }
        let categoryNode = try top.required("category")
        let categoryName = try categoryNode.choice(DeviceCategory.allCases.map(\.rawValue), what: "category")
        let category = DeviceCategory(rawValue: categoryName) ?? .light
        let productIDs =
            try top.optional("product_ids").map { node throws(ProfileError) in try productIDList(node) } ?? []
        let transports = try transportSet(top.required("transports"))
        let frameGap =
            try top.optional("frame_gap_ms")?.int(in: 0...60_000, what: "frame gap")
            ?? min(max(defaultFrameGap, 0), 60_000)
        let bleConnection =
            try top.optional("ble").map { node throws(ProfileError) in
                try bleSettings(node, transports: transports)
            } ?? .keep

        let dataPoints = try dataPointList(top.required("data_points"))
        let capabilities =
            try top.optional("capabilities").map { node throws(ProfileError) in
                try capabilityBindings(node, dataPoints: dataPoints)
            } ?? [:]
        let faults =
            try top.optional("faults").map { node throws(ProfileError) in
                try faultLabels(node, capabilities: capabilities)
            } ?? []
        let scenes =
            try top.optional("scenes").map { node throws(ProfileError) in
                try namedScenes(node, capabilities: capabilities, dataPoints: dataPoints)
            } ?? []
        let maintenance =
            try top.optional("maintenance").map { node throws(ProfileError) in
                try maintenanceRules(node, faults: faults, capabilities: capabilities, dataPoints: dataPoints)
            } ?? []

        return DeviceProfile(
            id: id, name: name, manufacturer: manufacturer, model: model, category: category,
            productIDs: productIDs, transports: transports, frameGapMilliseconds: frameGap,
            bleConnection: bleConnection,
            dataPoints: dataPoints, capabilities: capabilities, faults: faults, scenes: scenes,
            maintenance: maintenance)
    }

    /// Guards the parser against hostile text, then composes exactly one document.
    static func compose(yaml: String, source: String) throws(ProfileError) -> ProfileNode {
        let size = yaml.utf8.count
        guard size <= maximumSize else {
            throw ProfileError(
                source: source,
                reason: "file is \(size) bytes; profiles are limited to \(maximumSize) bytes")
        }
        if let finding = YAMLAliasScreen.firstAnchorOrAlias(in: yaml) {
            throw ProfileError(
                source: source, line: finding.line,
                reason: "YAML \(finding.isAnchor ? "anchors (&name)" : "aliases (*name)") are not allowed in "
                    + "profiles; write the value out (& and * are fine inside text, as in 'R&D', or before a space)")
        }
        let node: Node?
        do {
            node = try ProfileNode.compose(yaml: yaml)
        } catch let error as YamlError {
            throw ProfileError(yamlError: error, source: source)
        } catch {
            throw ProfileError(source: source, reason: "not valid YAML: \(error)")
        }
        guard let node else {
            throw ProfileError(source: source, reason: "the file is empty; a profile is a mapping starting with 'id:'")
        }
        return ProfileNode(node: node, path: "", source: source)
    }

    // MARK: - Top-level scalars

    static func profileID(_ node: ProfileNode) throws(ProfileError) -> String {
        let id = try node.string()
        guard isWord(id, first: isLowerOrDigit, rest: { isLowerOrDigit($0) || $0 == 0x2D }, maxLength: 64) else {
            throw node.error(
                "profile id '\(id.prefix(70))' must be 1-64 lower-case letters, digits and '-', starting with a letter or digit"
            )
        }
        return id
    }

    static func nonEmptyString(_ node: ProfileNode) throws(ProfileError) -> String {
        let text = try node.string()
        guard !text.allSatisfy(\.isWhitespace) else { throw node.error("must not be empty") }
        return text
    }

    static func productIDList(_ node: ProfileNode) throws(ProfileError) -> [String] {
        var seen: [String: Int] = [:]
        var ids: [String] = []
        for (index, item) in try node.list().enumerated() {
            let id = try item.string()
            guard !id.isEmpty, id.utf8.count <= 64, id.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw item.error("product id '\(id.prefix(70))' must be 1-64 printable ASCII characters without spaces")
            }
            if let earlier = seen[id] {
                throw item.error("duplicate product id '\(id)' (also at product_ids[\(earlier)])")
            }
            seen[id] = index
            ids.append(id)
        }
        return ids
    }

    static func transportSet(_ node: ProfileNode) throws(ProfileError) -> Set<Transport> {
        var transports: Set<Transport> = []
        let items = try node.list()
        guard !items.isEmpty else { throw node.error("list at least one transport: mqtt or ble") }
        for item in items {
            let name = try item.choice(Transport.allCases.map(\.rawValue), what: "transport")
            guard let transport = Transport(rawValue: name), transports.insert(transport).inserted else {
                throw item.error("transport '\(name)' is listed twice")
            }
        }
        return transports
    }

    /// `ble: { connection: keep | on_demand }`; only meaningful for a product reached over BLE.
    static func bleSettings(_ node: ProfileNode, transports: Set<Transport>) throws(ProfileError)
        -> BLEConnectionPolicy
    {
        let settings = try node.mapping(allowed: ["connection"])
        guard transports.contains(.ble) else {
            throw node.error("BLE settings need 'ble' in transports")
        }
        guard let connection = settings.optional("connection") else { return .keep }
        let name = try connection.choice(BLEConnectionPolicy.allCases.map(\.rawValue), what: "BLE connection policy")
        return BLEConnectionPolicy(rawValue: name) ?? .keep
    }

    // MARK: - Character classes

    static func isLowerOrDigit(_ byte: UInt8) -> Bool { (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) }
    static func isLower(_ byte: UInt8) -> Bool { (0x61...0x7A).contains(byte) }

    /// ASCII word check without regular expressions (Foundation's differ across platforms).
    static func isWord(
        _ text: String, first: (UInt8) -> Bool, rest: (UInt8) -> Bool, maxLength: Int
    ) -> Bool {
        let bytes = Array(text.utf8)
        guard let head = bytes.first, bytes.count <= maxLength, first(head) else { return false }
        return bytes.dropFirst().allSatisfy(rest)
    }
}

extension ProfileError {
    /// Keeps the parser's problem and line, drops its multi-line snippet.
    public init(yamlError: YamlError, source: String) {
        switch yamlError {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            let prefix = context.map { "\($0.text): " } ?? ""
            self.init(source: source, line: mark.line, reason: "not valid YAML: \(prefix)\(problem)")
        case .reader(let problem, _, _, _):
            self.init(source: source, reason: "not readable as YAML text: \(problem)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            let keys = duplicates.sorted().map { "'\($0.prefix(40))'" }.joined(separator: ", ")
            self.init(source: source, line: context.mark.line, reason: "duplicate key \(keys) in one mapping")
        default:
            self.init(source: source, reason: "not valid YAML: \(yamlError)")
        }
    }
}
