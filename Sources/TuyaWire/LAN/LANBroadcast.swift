import TuyaCore

/// What a Tuya device announces in its UDP discovery broadcast (protocol/TUYA.md §2.1;
/// TT `scanner.py devinfo_keys`): `{"ip","gwId","active","ability","encrypt","productKey",
/// "version","token","wf_cfg"}`. Non-ESP firmware spells `ability` as `ablilty`; both
/// are read. Every field but `gwId`, `ip` and `version` is optional.
public struct LANBroadcast: Sendable, Hashable {
    /// The device id (`gwId`; some firmware also sends `id`).
    public var gwId: String
    public var ip: String
    /// The version text as sent ("3.3"); `protocolVersion` when this gateway speaks it.
    public var version: String
    public var productKey: String?
    public var encrypt: Bool?
    public var active: Int?
    public var ability: Int?
    public var token: Bool?
    public var wifiConfigured: Bool?

    public init(
        gwId: String, ip: String, version: String, productKey: String? = nil, encrypt: Bool? = nil,
        active: Int? = nil, ability: Int? = nil, token: Bool? = nil, wifiConfigured: Bool? = nil
    ) {
        self.gwId = gwId
        self.ip = ip
        self.version = version
        self.productKey = productKey
        self.encrypt = encrypt
        self.active = active
        self.ability = ability
        self.token = token
        self.wifiConfigured = wifiConfigured
    }

    public var protocolVersion: LANProtocolVersion? { LANProtocolVersion(version) }

    /// Reads the announcement JSON; `gwId` (or `id`), `ip` and `version` are required,
    /// and a field of the wrong type is an error naming it.
    public init(json: [UInt8]) throws(WireError) {
        guard case .object(let root) = try CompactJSON.decode(json) else {
            throw .malformedJSON("the discovery broadcast is not a JSON object")
        }
        guard let gwId = root["gwId"]?.stringValue ?? root["id"]?.stringValue, !gwId.isEmpty else {
            throw .missingField("gwId")
        }
        guard let ip = root["ip"]?.stringValue else { throw .missingField("ip") }
        let version: String
        switch root["version"] {
        case .string(let text): version = text
        case .double(let number): version = String(number)
        case nil: throw .missingField("version")
        default: throw .invalidField(field: "version", reason: "not a string")
        }
        self.init(gwId: gwId, ip: ip, version: version)
        let integer: (JSONValue) -> Int? = { $0.int64Value.flatMap { Int(exactly: $0) } }
        productKey = try Self.optional(root, "productKey") { $0.stringValue }
        encrypt = try Self.optional(root, "encrypt") { if case .bool(let flag) = $0 { flag } else { nil } }
        active = try Self.optional(root, "active", integer)
        ability = try Self.optional(root, "ability", integer)
        if ability == nil { ability = try Self.optional(root, "ablilty", integer) }
        token = try Self.optional(root, "token") { if case .bool(let flag) = $0 { flag } else { nil } }
        wifiConfigured = try Self.optional(root, "wf_cfg") { if case .bool(let flag) = $0 { flag } else { nil } }
    }

    /// The JSON a device sends, with `ablilty` spelt as ESP firmware does not (`ability`).
    public var json: [UInt8] {
        var members: [String: JSONValue] = [
            "gwId": .string(gwId), "ip": .string(ip), "version": .string(version),
        ]
        if let productKey { members["productKey"] = .string(productKey) }
        if let encrypt { members["encrypt"] = .bool(encrypt) }
        if let active { members["active"] = .integer(Int64(active)) }
        if let ability { members["ability"] = .integer(Int64(ability)) }
        if let token { members["token"] = .bool(token) }
        if let wifiConfigured { members["wf_cfg"] = .bool(wifiConfigured) }
        return CompactJSON.encode(.object(members))
    }

    private static func optional<T>(
        _ root: [String: JSONValue], _ field: String, _ read: (JSONValue) -> T?
    ) throws(WireError) -> T? {
        guard let value = root[field], value != .null else { return nil }
        guard let typed = read(value) else { throw .invalidField(field: field, reason: "has the wrong type") }
        return typed
    }
}
