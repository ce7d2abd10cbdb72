import TuyaCore

/// One entry of the retained `<base>/bridge/devices` list, as a client reads it:
/// `{"id","friendly_name","transport","category","profile","model","product_id","capabilities":[…]}`.
///
/// Only `id` is required; the daemon may add fields, which `json` keeps for `--json` output.
public struct BridgeDevice: Hashable, Sendable {
    public var id: String
    /// The name in the device's topics (`youll/<friendly_name>`); its id when it has none.
    public var friendlyName: String
    public var transport: String?
    public var category: String?
    public var profile: String?
    public var model: String?
    public var productID: String?
    /// The names of what the device exposes (`brightness`, `mist_mode`).
    public var capabilities: [String]
    /// The entry exactly as published.
    public var json: JSONValue

    public init?(_ json: JSONValue) {
        guard let object = json.objectValue, let id = object["id"]?.stringValue, !id.isEmpty else { return nil }
        self.id = id
        let name = object["friendly_name"]?.stringValue ?? ""
        friendlyName = name.isEmpty ? id : name
        transport = object["transport"]?.stringValue
        category = object["category"]?.stringValue
        profile = object["profile"]?.stringValue
        model = object["model"]?.stringValue
        productID = object["product_id"]?.stringValue
        if case .array(let items)? = object["capabilities"] {
            // Names, or zigbee2mqtt-style exposes objects with a "name".
            capabilities = items.compactMap { $0.stringValue ?? $0["name"]?.stringValue }
        } else {
            capabilities = []
        }
        self.json = json
    }

    /// Reads the `bridge/devices` payload. Entries that are not objects with a string `id`
    /// are skipped (a newer daemon may publish kinds this client does not know); a payload
    /// that is not an array is an error.
    public static func list(from payload: JSONValue, topic: String) throws(BridgeClientError) -> [BridgeDevice] {
        guard case .array(let entries) = payload else {
            throw .malformedPayload(
                topic: topic, reason: "expected an array of devices, got \(BridgeJSON.kind(of: payload))")
        }
        return entries.compactMap(BridgeDevice.init)
    }

    /// The device `name` designates: its friendly name first, then its id, as the daemon
    /// resolves request names. A name matching nothing lists the paired names.
    public static func resolve(_ name: String, in devices: [BridgeDevice]) throws(BridgeClientError) -> BridgeDevice {
        if let device = devices.first(where: { $0.friendlyName == name }) ?? devices.first(where: { $0.id == name }) {
            return device
        }
        let typed = try? DeviceName(text: name)
        let lookalike = devices.first { typed?.lookalikeWarning(of: $0.friendlyName) != nil }
        throw .unknownDevice(
            name: BridgeText.printable(name, maximumLength: 64),
            known: devices.map { BridgeText.printable($0.friendlyName, maximumLength: 64) }.sorted(),
            lookalike: lookalike.map { BridgeText.printable($0.friendlyName, maximumLength: 64) })
    }
}
