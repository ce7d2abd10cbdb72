import TuyaCore
import TuyaWire

extension BridgeRequest.DeviceAdd {
    /// The fields of a `device/add` request.
    static func parse(_ fields: inout RequestFields) throws(BridgePayloadError) -> Self {
        let idText = try fields.requiredString("id")
        guard let id = DeviceID(idText) else {
            throw BridgePayloadError(
                field: "id", reason: "not a Tuya device id (letters, digits, '_' and '-', up to 64 characters)")
        }
        let key = try SecretKey(field: "local_key", text: fields.requiredString("local_key"))
        let name = try fields.optionalString("name").map { text throws(BridgePayloadError) in
            try DeviceName(field: "name", text: text)
        }
        let profile = try fields.optionalString("profile")
        let product = try fields.optionalString("product_id")
        if let product, product.isEmpty || product.utf8.count > 64 || !product.allSatisfy(\.isASCII) {
            throw BridgePayloadError(field: "product_id", reason: "expected up to 64 ASCII characters")
        }
        let transport = try fields.transport() ?? .mqtt
        var ble: BLEIdentity?
        if transport == .ble {
            let address = try fields.requiredString("address")
            let uuid = try fields.requiredString("uuid")
            let random = try fields.optionalBool("random_address") ?? false
            do throws(BLEIdentityError) {
                ble = try BLEIdentity(address: address, randomAddress: random, uuid: uuid)
            } catch {
                let field = if case .invalidAddress = error { "address" } else { "uuid" }
                throw BridgePayloadError(field: field, reason: error.description)
            }
        }
        let lan = transport == .lan ? try fields.lanTarget() : nil
        return Self(
            id: id, localKey: key, name: name, profileID: profile, productID: product, transport: transport,
            ble: ble, lan: lan)
    }
}

extension BridgeRequest {
    /// The payload's JSON object; an empty (or blank) payload counts as `{}`.
    static func members(of payload: [UInt8]) throws(BridgePayloadError) -> [String: JSONValue] {
        guard !payload.allSatisfy({ $0 == 0x20 || $0 == 0x0a || $0 == 0x0d || $0 == 0x09 }) else { return [:] }
        let value: JSONValue
        do {
            value = try CompactJSON.decode(payload)
        } catch {
            throw BridgePayloadError(field: "payload", reason: "not JSON: \(error)")
        }
        guard let members = value.objectValue else {
            throw BridgePayloadError(field: "payload", reason: "expected a JSON object")
        }
        return members
    }
}
