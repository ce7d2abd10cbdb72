import Foundation
import TuyaCore

/// Reads a tinytuya `devices.json` (the wizard's output): an array of objects with `id`,
/// `key`, `name`, `product_id` and more. The file comes from the user, so nothing here
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
            throw .invalidImport(reason: "the top level must be an array of devices")
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
            entries.append(Entry(id: id, localKey: key, name: name ?? id.rawValue, productID: productID))
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

        private enum Field: String, CodingKey {
            case id, key, name
            case productID = "product_id"
        }

        init(from decoder: any Decoder) throws {
            guard let fields = try? decoder.container(keyedBy: Field.self) else { return }
            isObject = true
            id = try? fields.decodeIfPresent(String.self, forKey: .id)
            key = try? fields.decodeIfPresent(String.self, forKey: .key)
            name = try? fields.decodeIfPresent(String.self, forKey: .name)
            productID = try? fields.decodeIfPresent(String.self, forKey: .productID)
        }
    }
}
