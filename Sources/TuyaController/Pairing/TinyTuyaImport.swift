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
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: Data(bytes), options: [])
        } catch {
            throw .invalidImport(reason: "the file is not valid JSON")
        }
        guard let array = root as? [Any] else {
            throw .invalidImport(reason: "the top level must be an array of devices")
        }
        var entries: [Entry] = []
        var seen: Set<DeviceID> = []
        for (index, element) in array.enumerated() {
            guard let object = element as? [String: Any] else {
                throw .invalidImport(reason: "entry \(index) is not an object")
            }
            guard let rawID = object["id"] as? String else {
                throw .invalidImport(reason: "entry \(index) has no string 'id'")
            }
            guard let id = DeviceID(rawID) else {
                throw .invalidImport(reason: "entry \(index): 'id' is not a device id")
            }
            guard let key = object["key"] as? String, !key.isEmpty else { continue }
            guard key.utf8.count == 16 else {
                throw .invalidImport(reason: "entry \(index) (\(id)): 'key' is not 16 characters")
            }
            guard seen.insert(id).inserted else {
                throw .invalidImport(reason: "entry \(index): device \(id) is listed twice")
            }
            let name = (object["name"] as? String).map { String($0.prefix(64)) }.flatMap { $0.isEmpty ? nil : $0 }
            let productID = (object["product_id"] as? String).flatMap { $0.isEmpty ? nil : String($0.prefix(64)) }
            entries.append(Entry(id: id, localKey: key, name: name ?? id.rawValue, productID: productID))
        }
        return entries
    }
}
