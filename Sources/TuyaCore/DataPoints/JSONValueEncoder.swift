/// Encodes any `Encodable` straight into a `JSONValue`: the gateway's `Codable` payloads
/// (bridge responses, session status, Home Assistant configs) become the same values that
/// were once built by hand, so the bytes `CompactJSON` writes for them are unchanged.
/// Integers stay `.integer` and floating-point numbers `.double` (Foundation's
/// `JSONEncoder` writes `4.0` as `4`); a nil optional is left out, as `JSONEncoder` does;
/// `NullWhenAbsent` writes it as `null` where the API documents a null.
public struct JSONValueEncoder: Sendable {
    public init() {}

    public func encode(_ value: some Encodable) throws -> JSONValue {
        let root = JSONNode()
        try value.encode(to: NodeEncoder(node: root, codingPath: []))
        return root.json
    }
}

/// An optional that is encoded as `null` when absent, instead of being left out.
@propertyWrapper
public struct NullWhenAbsent<Value: Codable & Sendable>: Codable, Sendable {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension NullWhenAbsent: Hashable where Value: Hashable {}
extension NullWhenAbsent: Equatable where Value: Equatable {}

/// One value under construction: a leaf, an object or an array.
private final class JSONNode {
    var leaf: JSONValue?
    var members: [String: JSONNode]?
    var elements: [JSONNode]?

    var json: JSONValue {
        if let members { return .object(members.mapValues(\.json)) }
        if let elements { return .array(elements.map(\.json)) }
        return leaf ?? .object([:])
    }

    func child(_ key: String) -> JSONNode {
        let node = JSONNode()
        if members == nil { members = [:] }
        members?[key] = node
        return node
    }

    func appended() -> JSONNode {
        let node = JSONNode()
        if elements == nil { elements = [] }
        elements?.append(node)
        return node
    }
}

private struct NodeEncoder: Encoder {
    let node: JSONNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if node.members == nil { node.members = [:] }
        return KeyedEncodingContainer(KeyedNodeContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if node.elements == nil { node.elements = [] }
        return UnkeyedNodeContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleNodeContainer(node: node, codingPath: codingPath)
    }
}

/// Numbers as `JSONValue` keeps them: integers exact, the rest as `Double`.
private enum Scalar {
    static func integer(_ value: some BinaryInteger, at path: [any CodingKey]) throws -> JSONValue {
        guard let exact = Int64(exactly: value) else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: path, debugDescription: "\(value) does not fit a JSON integer"))
        }
        return .integer(exact)
    }

    /// A value that already is JSON (device state, data points), taken as it is instead of
    /// being taken apart through `Encodable` and built up again: the same result, and the
    /// bulk of a `/set` answer's encoding time.
    static func json(_ value: some Encodable) -> JSONValue? {
        if let json = value as? JSONValue { return json }
        if let object = value as? [String: JSONValue] { return .object(object) }
        return nil
    }
}

private struct KeyedNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: JSONNode
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.child(key.stringValue).leaf = .null }
    mutating func encode(_ value: Bool, forKey key: Key) throws { node.child(key.stringValue).leaf = .bool(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { node.child(key.stringValue).leaf = .string(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { node.child(key.stringValue).leaf = .double(value) }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        node.child(key.stringValue).leaf = .double(Double(value))
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try integer(value, key) }

    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        if let json = Scalar.json(value) { return node.child(key.stringValue).leaf = json }
        try value.encode(to: NodeEncoder(node: node.child(key.stringValue), codingPath: codingPath + [key]))
    }

    private func integer(_ value: some BinaryInteger, _ key: Key) throws {
        node.child(key.stringValue).leaf = try Scalar.integer(value, at: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        NodeEncoder(node: node.child(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        NodeEncoder(node: node.child(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        NodeEncoder(node: node.child("super"), codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        NodeEncoder(node: node.child(key.stringValue), codingPath: codingPath + [key])
    }
}

private struct UnkeyedNodeContainer: UnkeyedEncodingContainer {
    let node: JSONNode
    let codingPath: [any CodingKey]
    var count: Int { node.elements?.count ?? 0 }

    private var nextPath: [any CodingKey] { codingPath + [IndexKey(intValue: count)] }

    mutating func encodeNil() throws { node.appended().leaf = .null }
    mutating func encode(_ value: Bool) throws { node.appended().leaf = .bool(value) }
    mutating func encode(_ value: String) throws { node.appended().leaf = .string(value) }
    mutating func encode(_ value: Double) throws { node.appended().leaf = .double(value) }
    mutating func encode(_ value: Float) throws { node.appended().leaf = .double(Double(value)) }
    mutating func encode(_ value: Int) throws { node.appended().leaf = try Scalar.integer(value, at: nextPath) }
    mutating func encode(_ value: Int64) throws { node.appended().leaf = try Scalar.integer(value, at: nextPath) }
    mutating func encode(_ value: UInt64) throws { node.appended().leaf = try Scalar.integer(value, at: nextPath) }

    mutating func encode(_ value: some Encodable) throws {
        if let json = Scalar.json(value) { return node.appended().leaf = json }
        let path = nextPath
        try value.encode(to: NodeEncoder(node: node.appended(), codingPath: path))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        let path = nextPath
        return NodeEncoder(node: node.appended(), codingPath: path).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath
        return NodeEncoder(node: node.appended(), codingPath: path).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let path = nextPath
        return NodeEncoder(node: node.appended(), codingPath: path)
    }
}

private struct SingleNodeContainer: SingleValueEncodingContainer {
    let node: JSONNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.leaf = .null }
    mutating func encode(_ value: Bool) throws { node.leaf = .bool(value) }
    mutating func encode(_ value: String) throws { node.leaf = .string(value) }
    mutating func encode(_ value: Double) throws { node.leaf = .double(value) }
    mutating func encode(_ value: Float) throws { node.leaf = .double(Double(value)) }
    mutating func encode(_ value: Int) throws { node.leaf = try Scalar.integer(value, at: codingPath) }
    mutating func encode(_ value: Int8) throws { node.leaf = try Scalar.integer(value, at: codingPath) }
    mutating func encode(_ value: Int16) throws { node.leaf = try Scalar.integer(value, at: codingPath) }
    mutating func encode(_ value: Int32) throws { node.leaf = try Scalar.integer(value, at: codingPath) }
    mutating func encode(_ value: Int64) throws { node.leaf = try Scalar.integer(value, at: codingPath) }
    mutating func encode(_ value: UInt) throws { node.leaf = try Scalar.integer(value, at: codingPath) }
    mutating func encode(_ value: UInt8) throws { node.leaf = try Scalar.integer(value, at: codingPath) }
    mutating func encode(_ value: UInt16) throws { node.leaf = try Scalar.integer(value, at: codingPath) }
    mutating func encode(_ value: UInt32) throws { node.leaf = try Scalar.integer(value, at: codingPath) }
    mutating func encode(_ value: UInt64) throws { node.leaf = try Scalar.integer(value, at: codingPath) }

    mutating func encode(_ value: some Encodable) throws {
        if let json = Scalar.json(value) { return node.leaf = json }
        try value.encode(to: NodeEncoder(node: node, codingPath: codingPath))
    }
}

/// An array position in a coding path.
private struct IndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { "\(intValue ?? 0)" }

    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}
