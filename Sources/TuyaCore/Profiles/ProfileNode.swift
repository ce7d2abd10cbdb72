import Yams

/// A node of a composed profile document together with the key path that reached it,
/// so that every accessor can throw a `ProfileError` naming the exact place.
///
/// Scalars are read from their text, not through Yams' YAML 1.1 resolver: in a profile
/// `id: 0x14`, `id: "20"`, `1:30` or `yes` are mistakes to report, not values to coerce.
///
/// Public so that other hand-written YAML (the gateway's configuration file) is walked the
/// same way, with the same strict scalars and key-path errors.
public struct ProfileNode {
    public let node: Node
    public let path: String
    public let source: String

    public init(node: Node, path: String, source: String) {
        self.node = node
        self.path = path
        self.source = source
    }

    public var line: Int? { node.mark?.line }

    /// Composes one YAML document without Yams' YAML 1.1 resolver (`Resolver.basic`): every
    /// scalar stays text, read by the accessors below. The default resolver would also compile
    /// its tag patterns as `NSRegularExpression`s, which loads ICU's regex engine and data
    /// into the daemon (about 1 MB of memory) for nothing these documents use.
    public static func compose(yaml: String) throws -> Node? {
        try Yams.compose(yaml: yaml, .basic)
    }

    public func error(_ reason: String) -> ProfileError {
        ProfileError(source: source, keyPath: path, line: line, reason: reason)
    }

    public func child(_ node: Node, key: String) -> ProfileNode {
        ProfileNode(node: node, path: path.isEmpty ? key : "\(path).\(key)", source: source)
    }

    public func child(_ node: Node, index: Int) -> ProfileNode {
        ProfileNode(node: node, path: "\(path)[\(index)]", source: source)
    }

    /// A plain `~`, `null` or nothing at all: treated as an absent key.
    public var isNull: Bool {
        guard case .scalar(let scalar) = node, scalar.style == .plain || scalar.style == .any else { return false }
        return ["", "~", "null", "Null", "NULL"].contains(scalar.string)
    }

    private var kindName: String {
        switch node {
        case .scalar: isNull ? "null" : "a scalar"
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .alias: "an alias"
        }
    }

    /// The entries of a mapping whose keys must all be in `allowed`.
    public func mapping(allowed: [String]) throws(ProfileError) -> ProfileMapping {
        guard case .mapping(let mapping) = node else {
            throw error("expected a mapping, found \(kindName)")
        }
        var entries: [(key: String, value: ProfileNode)] = []
        for (keyNode, valueNode) in mapping {
            guard case .scalar(let keyScalar) = keyNode else {
                throw error(
                    "mapping keys must be plain words, found a \(keyNode.mapping != nil ? "mapping" : "list") key")
            }
            let key = keyScalar.string
            let value = child(valueNode, key: key)
            guard allowed.contains(key) else {
                let keyed = ProfileNode(node: keyNode, path: value.path, source: source)
                throw keyed.error("unknown key '\(key)'; expected one of: \(allowed.joined(separator: ", "))")
            }
            try refuseDuplicate(key, keyNode, in: entries)
            entries.append((key, value))
        }
        return ProfileMapping(owner: self, entries: entries)
    }

    /// A mapping whose keys are free-form names (scenes, capabilities); the caller checks them.
    public func namedEntries() throws(ProfileError) -> [(key: String, value: ProfileNode)] {
        guard case .mapping(let mapping) = node else {
            throw error("expected a mapping, found \(kindName)")
        }
        var entries: [(key: String, value: ProfileNode)] = []
        for (keyNode, valueNode) in mapping {
            guard case .scalar(let keyScalar) = keyNode else {
                throw error("mapping keys must be plain words, not lists or mappings")
            }
            try refuseDuplicate(keyScalar.string, keyNode, in: entries)
            entries.append((keyScalar.string, child(valueNode, key: keyScalar.string)))
        }
        return entries
    }

    /// Yams refuses a key written twice, but compares tags too: `!x url:` beside `url:` reaches
    /// here as a second `url`, which would otherwise be dropped without a word.
    public func refuseDuplicate(
        _ key: String, _ keyNode: Node, in entries: [(key: String, value: ProfileNode)]
    ) throws(ProfileError) {
        guard entries.contains(where: { $0.key == key }) else { return }
        let keyed = ProfileNode(node: keyNode, path: path, source: source)
        throw keyed.error("duplicate key '\(key.prefix(40))' in one mapping")
    }

    public func list() throws(ProfileError) -> [ProfileNode] {
        guard case .sequence(let sequence) = node else {
            throw error("expected a list, found \(kindName)")
        }
        return sequence.enumerated().map { child($0.element, index: $0.offset) }
    }

    private func scalar() throws(ProfileError) -> Node.Scalar {
        guard case .scalar(let scalar) = node, !isNull else {
            throw error("expected a scalar, found \(kindName)")
        }
        return scalar
    }

    /// Any non-null scalar, as written. Numbers are accepted as text (`values: [1, 3, 6]`).
    public func string() throws(ProfileError) -> String {
        guard case .scalar(let scalar) = node, !isNull else {
            throw error("expected a string, found \(kindName)")
        }
        return scalar.string
    }

    /// A plain decimal integer (`20`, `-5`); quoted numbers, hex, floats and YAML 1.1 forms are refused.
    public func int() throws(ProfileError) -> Int {
        let scalar = try scalar()
        let text = scalar.string
        let digits = text.hasPrefix("-") || text.hasPrefix("+") ? text.dropFirst() : Substring(text)
        guard scalar.style == .plain, !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw error("expected a whole number, found '\(text.prefix(40))'")
        }
        guard let value = Int(text) else {
            throw error("number \(text.prefix(40)) is too large")
        }
        return value
    }

    public func int(in range: ClosedRange<Int>, what: String = "value") throws(ProfileError) -> Int {
        let value = try int()
        guard range.contains(value) else {
            throw error("\(what) \(value) is outside \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// A plain `true` or `false`. YAML 1.1's `yes`/`on` are refused so a profile means one thing everywhere.
    public func bool() throws(ProfileError) -> Bool {
        let scalar = try scalar()
        guard scalar.style == .plain else {
            throw error("expected true or false, found a quoted string")
        }
        switch scalar.string {
        case "true", "True", "TRUE": return true
        case "false", "False", "FALSE": return false
        default: throw error("expected true or false, found '\(scalar.string.prefix(40))'")
        }
    }

    /// A string that must be one of `choices`.
    public func choice(_ choices: [String], what: String) throws(ProfileError) -> String {
        let value = try string()
        guard choices.contains(value) else {
            throw error("unknown \(what) '\(value.prefix(40))'; expected one of: \(choices.joined(separator: ", "))")
        }
        return value
    }
}

/// The checked entries of one mapping in a profile.
public struct ProfileMapping {
    public let owner: ProfileNode
    public let entries: [(key: String, value: ProfileNode)]

    public init(owner: ProfileNode, entries: [(key: String, value: ProfileNode)]) {
        self.owner = owner
        self.entries = entries
    }

    /// The value of `key`, or nil when the key is absent or null.
    public func optional(_ key: String) -> ProfileNode? {
        guard let entry = entries.first(where: { $0.key == key }), !entry.value.isNull else { return nil }
        return entry.value
    }

    public func required(_ key: String) throws(ProfileError) -> ProfileNode {
        guard let value = optional(key) else {
            throw owner.error("missing required key '\(key)'")
        }
        return value
    }

    public func has(_ key: String) -> Bool { optional(key) != nil }
}
