/// Why the GATT client could not find or use a device's Tuya service.
public enum GATTError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No primary service 0x1910 or 0xFD50; `found` lists the device's services.
    case tuyaServiceNotFound(found: [BluetoothUUID])
    /// The Tuya service lacks the write or notify characteristic.
    case characteristicsMissing(service: BluetoothUUID, missing: [BluetoothUUID], found: [BluetoothUUID])
    /// The notify characteristic does not allow notifications, or writes without response.
    case characteristicLacksProperty(BluetoothUUID, property: String)
    /// The notify characteristic has no CCCD (0x2902), so notifications cannot be enabled.
    case configurationDescriptorMissing(characteristic: BluetoothUUID)
    /// A discovery response contradicts itself (handles out of range or going backwards).
    case invalidDiscoveryResponse(String)
    /// `enableNotifications` or a write before `discoverTuyaService`.
    case notDiscovered
    /// A write longer than ATT_MTU − 3.
    case valueTooLong(length: Int, maximum: Int)
    /// The ATT exchange failed.
    case link(ATTError)

    public var description: String {
        switch self {
        case .tuyaServiceNotFound(let found):
            "the device has no Tuya GATT service (0x1910 or 0xfd50); it offers "
                + (found.isEmpty ? "no services" : found.map(\.description).joined(separator: ", "))
                + "; is it a Tuya BLE device?"
        case .characteristicsMissing(let service, let missing, let found):
            "the Tuya service \(service) lacks \(missing.map(\.description).joined(separator: " and ")); it has "
                + (found.isEmpty ? "no characteristics" : found.map(\.description).joined(separator: ", "))
        case .characteristicLacksProperty(let uuid, let property):
            "characteristic \(uuid) does not support \(property)"
        case .configurationDescriptorMissing(let uuid):
            "the notify characteristic \(uuid) has no configuration descriptor (0x2902), so it cannot notify"
        case .invalidDiscoveryResponse(let what):
            "the device's GATT discovery answer is inconsistent: \(what)"
        case .notDiscovered:
            "the Tuya service has not been discovered yet (call discoverTuyaService first)"
        case .valueTooLong(let length, let maximum):
            "a \(length)-byte write does not fit the ATT MTU (at most \(maximum) bytes)"
        case .link(let error):
            error.description
        }
    }
}
