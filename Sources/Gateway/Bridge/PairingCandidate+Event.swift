import TuyaCore

extension PairingCandidate {
    /// The `device_found` event's data: the id, and for a device heard broadcasting on the
    /// LAN its address, protocol version and product key (what `pair lan` needs).
    public var eventData: [String: JSONValue] {
        var data: [String: JSONValue] = ["id": .string(id.rawValue)]
        guard let lan else { return data }
        data.merge(lan.eventData) { _, new in new }
        return data
    }
}

extension LANSighting {
    /// `{"id", "transport": "lan", "ip", "version", "product_key"}`.
    public var eventData: [String: JSONValue] {
        [
            "id": .string(id.rawValue), "transport": .string("lan"), "ip": .string(ip), "version": .string(version),
            "product_key": productKey.map(JSONValue.string) ?? .null,
        ]
    }
}
