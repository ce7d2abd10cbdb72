import Foundation
import TuyaCore

/// Reads a tinytuya `devices.json` (the wizard's output): an array of objects with `id`,
/// `key`, `name`, `product_id`, `ip`, `version` and more; or its `snapshot.json` (a scan:
/// `{"devices": [...]}` with `ip` and `ver`). An entry with an IP is a LAN device. The file comes from the user, so nothing here
/// traps: every problem becomes a `PairingError.invalidImport` naming the entry, never
/// the key. Entries without a key (BLE sub-devices, gateways) are skipped, as tinytuya does.
public enum TinyTuyaImport {
    /// One importable device.
    public struct Entry: Hashable, Sendable, CustomStringConvertible {
        public var id: DeviceID
        /// The local key text; not part of `description`.
        public var localKey: String
        public var name: String
        public var productID: String?
        /// The device's address on the LAN, when the file has one: pair it over the LAN protocol.
        public var ip: String?
        /// The LAN protocol version the file gives (`3.3`); nil: from the device's broadcast.
        public var version: String?

        public var description: String { "\(name) (\(id))" }
    }

    /// Larger than any real devices.json (a few kB per device) by a wide margin.
    public static let maximumSize = 4 * 1024 * 1024

    public static func parse(_ bytes: [UInt8]) throws(PairingError) -> [Entry] {
        guard bytes.count <= maximumSize else {
            throw .invalidImport(reason: "the file is larger than \(maximumSize) bytes")
        }
        // JSONDecoder reads only the four fields it needs; JSONSerialization built the whole
        // file (with each device's DP mapping) as Foundation objects, about 10 MB of
        // transient heap for a 1,000-device file.
        let rows: [Row]
        do {
            rows = try JSONDecoder().decode([Row].self, from: Data(bytes))
        } catch DecodingError.typeMismatch {
            guard let snapshot = try? JSONDecoder().decode(Snapshot.self, from: Data(bytes)) else {
                throw .invalidImport(
                    reason:
                        "the top level must be an array of devices (devices.json) or {\"devices\": [...]} (snapshot.json)"
                )
            }
            rows = snapshot.devices
        } catch {
            throw .invalidImport(reason: "the file is not valid JSON")
        }
        var entries: [Entry] = []
        var seen: Set<DeviceID> = []
        for (index, row) in rows.enumerated() {
            guard row.isObject else {
                throw .invalidImport(reason: "entry \(index) is not an object")
            }
            guard let rawID = row.id else {
                throw .invalidImport(reason: "entry \(index) has no string 'id'")
            }
            guard let id = DeviceID(rawID) else {
                throw .invalidImport(reason: "entry \(index): 'id' is not a device id")
            }
            guard let key = row.key, !key.isEmpty else { continue }
            guard key.utf8.count == 16 else {
                throw .invalidImport(reason: "entry \(index) (\(id)): 'key' is not 16 characters")
            }
            guard seen.insert(id).inserted else {
                throw .invalidImport(reason: "entry \(index): device \(id) is listed twice")
            }
            let name = row.name.map { String($0.prefix(64)) }.flatMap { $0.isEmpty ? nil : $0 }
            let productID = row.productID.flatMap { $0.isEmpty ? nil : String($0.prefix(64)) }
            let ip = row.ip.flatMap { $0.isEmpty ? nil : String($0.prefix(64)) }
            let version = row.version.flatMap { $0.isEmpty ? nil : String($0.prefix(16)) }
            entries.append(
                Entry(id: id, localKey: key, name: name ?? id.rawValue, productID: productID, ip: ip, version: version))
        }
        return entries
    }

    /// One element of the array, as far as the import cares: any other field is skipped,
    /// and a field of the wrong type reads as absent (then reported by `parse`).
    private struct Row: Decodable {
        var isObject = false
        var id: String?
        var key: String?
        var name: String?
        var productID: String?
        var ip: String?
        var version: String?

        private enum Field: String, CodingKey {
            case id, key, name, ip, version, ver
            case productID = "product_id"
        }

        init(from decoder: any Decoder) throws {
            guard let fields = try? decoder.container(keyedBy: Field.self) else { return }
            isObject = true
            id = try? fields.decodeIfPresent(String.self, forKey: .id)
            key = try? fields.decodeIfPresent(String.self, forKey: .key)
            name = try? fields.decodeIfPresent(String.self, forKey: .name)
            productID = try? fields.decodeIfPresent(String.self, forKey: .productID)
            ip = try? fields.decodeIfPresent(String.self, forKey: .ip)
            version = Self.version(in: fields, .version) ?? Self.version(in: fields, .ver)
        }

        /// `"3.3"`, or the number 3.3 that some files hold.
        private static func version(in fields: KeyedDecodingContainer<Field>, _ key: Field) -> String? {
            if let text = try? fields.decodeIfPresent(String.self, forKey: key) { return text }
            guard let number = try? fields.decodeIfPresent(Double.self, forKey: key), number.isFinite,
                (0...99).contains(number)
            else { return nil }
            return String(format: "%.1f", number)
        }
    }

    /// tinytuya's `snapshot.json`: the devices a scan found, with `ip` and `ver`.
    private struct Snapshot: Decodable {
        var devices: [Row]
    }
}
