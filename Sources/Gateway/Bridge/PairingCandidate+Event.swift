import TuyaCore

/// The `device_found` event's data: the id, and for a device heard broadcasting on the LAN
/// `{"transport": "lan", "ip", "version", "product_key"}` as well (what `pair lan` needs;
/// `product_key` null when the broadcast carried none).
public struct DeviceFoundPayload: Codable, Hashable, Sendable {
    public var id: String
    public var transport: String?
    public var ip: String?
    public var version: String?
    /// Absent for a device not heard on the LAN; null for one heard without a product key.
    public var productKey: NullWhenAbsent<String>?

    enum CodingKeys: String, CodingKey {
        case id, transport, ip, version
        case productKey = "product_key"
    }

    public init(_ candidate: PairingCandidate) {
        if let lan = candidate.lan {
            self.init(lan)
        } else {
            self.init(id: candidate.id.rawValue)
        }
    }

    private init(id: String) {
        self.id = id
    }

    public init(_ sighting: LANSighting) {
        id = sighting.id.rawValue
        transport = "lan"
        ip = sighting.ip
        version = sighting.version
        productKey = NullWhenAbsent(wrappedValue: sighting.productKey)
    }
}

extension PairingCandidate {
    /// The `device_found` event's data (`DeviceFoundPayload`).
    public var eventData: [String: JSONValue] { BridgeJSON.object(DeviceFoundPayload(self)) }
}

extension LANSighting {
    /// `{"id", "transport": "lan", "ip", "version", "product_key"}`.
    public var eventData: [String: JSONValue] { BridgeJSON.object(DeviceFoundPayload(self)) }
}
