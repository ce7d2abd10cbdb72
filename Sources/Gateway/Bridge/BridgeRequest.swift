import TuyaCore
import TuyaWire

/// A request published on `<base>/bridge/request/<verb>`, parsed from untrusted bytes into
/// a typed value (README "The MQTT bridge API"). Parsing is pure; the daemon performs it.
public enum BridgeRequest: Hashable, Sendable {
    /// Open (`seconds` long, or the configured default) or close the pairing window; with
    /// `transport` only for Wi-Fi (unknown devIds on the broker) or BLE (a scan), else both.
    case permitJoin(open: Bool, seconds: Int?, transport: Transport?)
    case deviceAdd(DeviceAdd)
    case deviceRemove(device: String)
    case deviceRename(from: String, to: DeviceName)
    case deviceRekey(device: String, localKey: SecretKey)
    case deviceRefresh(device: String)
    case healthCheck
    case backup
    /// `maintenance/…` and `deeplink/resolve`.
    case maintenance(MaintenanceRequest)
    /// `session/start|pause|resume|stop|status|history`: the timer.
    case session(SessionBridgeRequest)

    /// `device/add`: a device to pair by its devId and local key; a BLE device also by its
    /// address and uuid; a LAN device optionally by its IP and protocol version (else from
    /// its broadcast).
    public struct DeviceAdd: Hashable, Sendable {
        public var id: DeviceID
        public var localKey: SecretKey
        public var name: DeviceName?
        public var profileID: String?
        public var productID: String?
        public var transport: Transport = .mqtt
        /// Set exactly when `transport` is `.ble`.
        public var ble: BLEIdentity?
        /// Set exactly when `transport` is `.lan`.
        public var lan: LANTarget?
    }

    /// Where a LAN device is reached; what is nil comes from its latest broadcast.
    public struct LANTarget: Hashable, Sendable {
        public var ip: String?
        /// `3.1` … `3.5`.
        public var version: String?
    }

    /// How long a pairing window may stay open, in seconds (`permit_join`'s `time`).
    public static let permitJoinSeconds = 1...3600

    /// Every verb the bridge answers, for the error that lists them.
    public static let verbs =
        [
            "permit_join", "device/add", "device/remove", "device/rename", "device/rekey", "device/refresh",
            "health_check", "backup",
        ] + MaintenanceRequest.verbs + SessionBridgeRequest.verbs

    /// The longest verb accepted in a topic; anything longer is not answered (its response
    /// topic would be as long).
    static let maximumVerbLength = 64

    /// Whether `verb` may be echoed in `<base>/bridge/response/<verb>`: short, lower-case
    /// letters, digits, `_` and `/`.
    public static func isAnswerable(verb: String) -> Bool {
        !verb.isEmpty && verb.utf8.count <= maximumVerbLength
            && verb.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "/")
            }
    }

    /// Where requests on unanswerable topics are answered: `<base>/bridge/response/invalid`.
    public static let invalidVerbTopic = "invalid"

    /// Why `verb` is not a request topic, quoting at most its first 32 characters with
    /// anything unprintable escaped, so the answer is short and safe to show.
    public static func whyUnanswerable(verb: String) -> String {
        var shown = ""
        for scalar in verb.unicodeScalars.prefix(32) {
            shown += (0x21...0x7e).contains(scalar.value) ? String(scalar) : scalar.escaped(asASCII: true)
        }
        if verb.unicodeScalars.count > 32 { shown += "…" }
        let rule = "a verb is 1 to \(maximumVerbLength) bytes of lower-case a-z, 0-9, _ and /"
        return "request topic 'bridge/request/\(shown)' is not a verb (\(verb.utf8.count) bytes): \(rule)"
    }

    /// Reads the transaction first, so even a request refused for a bad field is answered
    /// with the caller's transaction.
    public static func transaction(in payload: [UInt8]) -> JSONValue? {
        guard let object = try? CompactJSON.decode(payload).objectValue, let transaction = object["transaction"] else {
            return nil
        }
        switch transaction {
        case .string(let text) where text.utf8.count <= 128: return transaction
        case .integer, .double, .bool: return transaction
        default: return nil
        }
    }

    /// Parses the payload of `verb`. An empty payload counts as `{}`.
    public static func parse(verb: String, payload: [UInt8]) throws(BridgePayloadError) -> BridgeRequest {
        var fields = RequestFields(try members(of: payload))
        if let transaction = fields.take("transaction"), transaction != .null,
            transaction != Self.transaction(in: payload)
        {
            // Answered without it, the caller could not match the answer to its request.
            throw BridgePayloadError(
                field: "transaction", reason: "expected a string of up to 128 bytes, a number or a boolean")
        }
        let request: BridgeRequest
        switch verb {
        case "permit_join":
            let open = try fields.requiredBool("value")
            let seconds = try fields.optionalInteger("time", in: Self.permitJoinSeconds)
            request = .permitJoin(open: open, seconds: seconds, transport: try fields.transport())
        case "device/add":
            request = .deviceAdd(try DeviceAdd.parse(&fields))
        case "device/remove":
            request = .deviceRemove(device: try fields.deviceReference("id"))
        case "device/rename":
            let from = try fields.deviceReference("from")
            let to = try DeviceName(field: "to", text: fields.requiredString("to"))
            request = .deviceRename(from: from, to: to)
        case "device/rekey":
            let device = try fields.deviceReference("id")
            let key = try SecretKey(field: "local_key", text: fields.requiredString("local_key"))
            request = .deviceRekey(device: device, localKey: key)
        case "device/refresh":
            request = .deviceRefresh(device: try fields.deviceReference("id"))
        case "health_check":
            request = .healthCheck
        case "backup":
            request = .backup
        case _ where MaintenanceRequest.verbs.contains(verb):
            request = .maintenance(try MaintenanceRequest.parse(verb: verb, fields: &fields))
        case _ where SessionBridgeRequest.verbs.contains(verb):
            request = .session(try SessionBridgeRequest.parse(verb: verb, fields: &fields))
        default:
            throw BridgePayloadError(
                field: "verb", reason: "unknown request \"\(verb.prefix(64))\"; known: \(verbs.joined(separator: ", "))"
            )
        }
        if let extra = fields.unread.first {
            throw BridgePayloadError(field: extra, reason: "unknown field for \(verb)")
        }
        return request
    }
}

/// A local key from a request: 16 printable ASCII characters. Its description is redacted,
/// so a request value can be logged without leaking it.
public struct SecretKey: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public let text: String

    init(field: String, text: String) throws(BridgePayloadError) {
        guard text.utf8.count == 16, text.utf8.allSatisfy({ (0x21...0x7e).contains($0) }) else {
            throw BridgePayloadError(field: field, reason: "must be 16 printable ASCII characters")
        }
        self.text = text
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

/// Reads typed fields out of a request object (or a `/set` command), remembering which were
/// read, so unknown fields can be refused.
struct RequestFields {
    let object: [String: JSONValue]
    private(set) var read: Set<String> = []

    init(_ object: [String: JSONValue]) {
        self.object = object
    }

    var unread: [String] { object.keys.filter { !read.contains($0) }.sorted() }

    mutating func take(_ key: String) -> JSONValue? {
        read.insert(key)
        return object[key]
    }

    mutating func requiredString(_ key: String) throws(BridgePayloadError) -> String {
        guard let value = take(key), value != .null else { throw BridgePayloadError(field: key, reason: "missing") }
        guard case .string(let text) = value else { throw BridgePayloadError(field: key, reason: "expected a string") }
        return text
    }

    mutating func optionalString(_ key: String) throws(BridgePayloadError) -> String? {
        switch take(key) {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw BridgePayloadError(field: key, reason: "expected a string")
        }
    }

    mutating func requiredBool(_ key: String) throws(BridgePayloadError) -> Bool {
        switch take(key) {
        case nil, .null?: throw BridgePayloadError(field: key, reason: "missing")
        case .bool(let flag)?: return flag
        case .string(let text)? where ["true", "false"].contains(text.lowercased()): return text.lowercased() == "true"
        default: throw BridgePayloadError(field: key, reason: "expected true or false")
        }
    }

    mutating func optionalBool(_ key: String) throws(BridgePayloadError) -> Bool? {
        switch take(key) {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        default: throw BridgePayloadError(field: key, reason: "expected true or false")
        }
    }

    /// `"mqtt"`, `"ble"` or `"lan"`.
    mutating func transport() throws(BridgePayloadError) -> Transport? {
        guard let text = try optionalString("transport") else { return nil }
        guard let transport = Transport(rawValue: text) else {
            throw BridgePayloadError(
                field: "transport",
                reason: "unknown transport \"\(text.prefix(32))\"; expected \"mqtt\", \"ble\" or \"lan\"")
        }
        return transport
    }

    /// `ip` (dotted IPv4) and `version` (`3.1` … `3.5`), each optional.
    mutating func lanTarget() throws(BridgePayloadError) -> BridgeRequest.LANTarget {
        let ip = try optionalString("ip")
        if let ip, !Self.isIPv4(ip) {
            throw BridgePayloadError(field: "ip", reason: "expected an IPv4 address such as 192.168.1.40")
        }
        let version = try optionalString("version")
        // Any "d.d" passes; the controller answers `unsupported_version` for one it does not speak.
        if let version,
            version.utf8.count != 3
                || !version.enumerated().allSatisfy({ $0 == 1 ? $1 == "." : $1.isASCII && $1.isNumber })
        {
            throw BridgePayloadError(
                field: "version", reason: "expected a protocol version such as 3.3, found \"\(version.prefix(16))\"")
        }
        return BridgeRequest.LANTarget(ip: ip, version: version)
    }

    static func isIPv4(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in
                (1...3).contains(part.count) && part.allSatisfy { $0.isASCII && $0.isNumber }
                    && (Int(part) ?? 256) <= 255
            }
    }

    mutating func optionalInteger(_ key: String, in range: ClosedRange<Int>) throws(BridgePayloadError) -> Int? {
        switch take(key) {
        case nil, .null?: return nil
        case let value?:
            guard let number = value.int64Value, let int = Int(exactly: number), range.contains(int) else {
                throw BridgePayloadError(
                    field: key, reason: "expected a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return int
        }
    }

    /// A device named by friendly name or id: a non-empty string of reasonable length.
    mutating func deviceReference(_ key: String) throws(BridgePayloadError) -> String {
        let text = try requiredString(key)
        guard !text.isEmpty, text.count <= 64 else {
            throw BridgePayloadError(field: key, reason: "expected a device's friendly name or id (1 to 64 characters)")
        }
        return text
    }
}
