import Foundation
import TuyaCore

/// Renders identities as the `devices.json` tinytuya's wizard writes (an array of
/// objects with `id`, `key`, `name`, `product_id`, `version` and a DP `mapping`), the
/// file the gateway's pair/import reads. Simulated MQTT devices have no IP; simulated LAN
/// devices carry their `ip` and protocol `version`, as tinytuya's scanner fills them in.
enum DevicesJSON {
    /// Where a LAN device is and which protocol it speaks.
    struct LANAddress {
        var ip: String
        var version: String
    }

    /// `lan` gives `ip` and `version` by devId; devices not in it get no IP and "3.3".
    static func render(_ identities: [DeviceIdentity], lan: [String: LANAddress] = [:]) -> String {
        let entries: [[String: Any]] = identities.map { identity in
            let profile = identity.profile
            return [
                "id": identity.devId,
                "key": identity.localKey,
                "name": identity.name,
                "product_id": profile.productIDs.first ?? "",
                "product_name": profile.name,
                "category": profile.category.rawValue,
                "model": profile.model ?? "",
                "version": lan[identity.devId]?.version ?? "3.3",
                "ip": lan[identity.devId]?.ip ?? "",
                "mac": "",
                "uuid": identity.devId,
                "sub": false,
                "icon": "",
                "mapping": mapping(profile),
            ]
        }
        let options: JSONSerialization.WritingOptions = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? JSONSerialization.data(withJSONObject: entries, options: options) else { return "[]" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// tinytuya's per-DP `mapping`: code, type name and value constraints.
    private static func mapping(_ profile: DeviceProfile) -> [String: Any] {
        var result: [String: Any] = [:]
        for spec in profile.dataPoints {
            var values: [String: Any] = [:]
            let type: String
            switch spec.type {
            case .bool: type = "Boolean"
            case .value:
                type = "Integer"
                if let range = spec.range {
                    values = ["min": Int(range.lowerBound), "max": Int(range.upperBound)]
                }
                values["scale"] = spec.scale
                values["step"] = Int(spec.step)
                if let unit = spec.unit { values["unit"] = unit }
            case .enumeration:
                type = "Enum"
                values = ["range": spec.values]
            case .string: type = spec.colourFormat == nil ? "String" : "Json"
            case .bitmap:
                type = "Bitmap"
                values = ["label": profile.faults.sorted { $0.bit < $1.bit }.map(\.label)]
            case .raw: type = "Raw"
            }
            result[spec.id.jsonKey] = ["code": spec.code, "type": type, "values": values]
        }
        return result
    }
}
