import Foundation
import GRDB
import TuyaCore

extension GatewayDatabase {
    /// A row this binary did not write (an unknown category, a missing key, a number where
    /// text belongs) is reported as damaged, naming what is wrong, rather than skipped (a
    /// silently missing device would look like a lost pairing) or trapped on: every column is
    /// read as a `DatabaseValue` and converted, never through GRDB's typed subscripts, which
    /// stop the process on a value of the wrong type.
    static func record(from row: Row) -> Result<StoredDeviceRecord, DamagedDeviceRecord> {
        let idValue: DatabaseValue = row["id"]
        let rawID = String.fromDatabaseValue(idValue) ?? idValue.description
        guard let id = DeviceID(rawID) else { return .failure(DamagedDeviceRecord(rawID: rawID, problem: "its id")) }
        let reader = ColumnReader(row: row)
        let (storedName, storedProfile, storedProduct) = (
            reader.text("name"), reader.text("profile_id"), reader.optionalText("product_id")
        )
        func damaged(_ problem: String, device: TuyaDevice? = nil) -> Result<StoredDeviceRecord, DamagedDeviceRecord> {
            .failure(
                DamagedDeviceRecord(rawID: rawID, id: id, name: storedName ?? rawID, device: device, problem: problem))
        }
        guard let rawCategory = reader.text("category"), let category = DeviceCategory(rawValue: rawCategory) else {
            return damaged("its category \(reader.shown("category"))")
        }
        guard let rawTransport = reader.text("transport"), let transport = Transport(rawValue: rawTransport) else {
            return damaged("its transport \(reader.shown("transport"))")
        }
        guard let name = storedName, let profileID = storedProfile, let productID = storedProduct else {
            return damaged("its name, profile or product id")
        }
        let device = TuyaDevice(
            id: id, name: name, profileID: profileID, category: category, transport: transport, productID: productID)
        guard let keyText = reader.text("local_key") else { return damaged("its local key", device: device) }
        guard let createdAt = row.date("created_at") else { return damaged("its pairing time", device: device) }
        guard let desiredText = reader.optionalText("desired"), let confirmedText = reader.optionalText("confirmed"),
            let desired = try? StoredDataPoints.decode(desiredText ?? "{}", path: "", column: "desired")
        else { return damaged("its desired state", device: device) }
        guard let confirmed = try? StoredDataPoints.decode(confirmedText ?? "{}", path: "", column: "confirmed") else {
            return damaged("its confirmed state", device: device)
        }
        var ble: BLEIdentity?
        if !reader.isNull("ble_address") {
            guard let address = reader.text("ble_address"), let uuid = reader.text("ble_uuid"),
                let random = reader.optional("ble_random", as: Bool.self),
                let identity = try? BLEIdentity(address: address, randomAddress: random ?? false, uuid: uuid)
            else { return damaged("its BLE address or uuid", device: device) }
            ble = identity
        }
        var lan: LANEndpoint?
        if !reader.isNull("lan_ip") {
            guard let ip = reader.text("lan_ip"), let version = reader.text("lan_version"),
                let source = reader.optional("lan_source", as: Int64.self) ?? nil,
                let sourceID = UInt32(exactly: source),
                let endpoint = try? LANEndpoint(ip: ip, version: version, sourceID: sourceID)
            else { return damaged("its LAN address, version or source id", device: device) }
            lan = endpoint
        }
        return .success(
            StoredDeviceRecord(
                device: device, localKey: LocalKey(keyText), createdAt: createdAt, desired: desired,
                confirmed: confirmed, confirmedAt: row.date("confirmed_at"), ble: ble, lan: lan))
    }

    /// A stored value as a message quotes it: escaped, at most 40 characters.
    public static func shown(_ text: String) -> String { String(reflecting: String(text.prefix(40))) }
}

/// Reads a row's columns without trapping: a value of the wrong type reads as a mismatch
/// (GRDB's typed subscripts stop the process on one; stored rows may be edited by hand).
struct ColumnReader {
    let row: Row

    func isNull(_ column: String) -> Bool { (row[column] as DatabaseValue).isNull }

    /// `.some(nil)` for NULL, `.some(value)` for a `T`, nil for a value that is not a `T`.
    func optional<T: DatabaseValueConvertible>(_ column: String, as type: T.Type) -> T?? {
        let value: DatabaseValue = row[column]
        if value.isNull { return .some(nil) }
        guard let converted = T.fromDatabaseValue(value) else { return nil }
        return .some(converted)
    }

    /// The column as a `T`; nil when it is NULL or not a `T`.
    func value<T: DatabaseValueConvertible>(_ column: String, as type: T.Type = T.self) -> T? {
        optional(column, as: type) ?? nil
    }

    /// The column's text; nil when it is NULL or not text.
    func text(_ column: String) -> String? { value(column, as: String.self) }

    /// `.some(nil)` for NULL, nil for a value that is not text.
    func optionalText(_ column: String) -> String?? { optional(column, as: String.self) }

    /// The column as a message quotes it.
    func shown(_ column: String) -> String {
        let value: DatabaseValue = row[column]
        return GatewayDatabase.shown(String.fromDatabaseValue(value) ?? value.description)
    }
}
