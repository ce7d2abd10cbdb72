import BLELink
import TuyaCore
import TuyaWire

/// Whether the daemon can use BLE, decided once at start (`GatewayDaemon.checkBluetooth`).
public enum BLESupport: Sendable {
    case available(adapter: String)
    /// Why not, in words that name the fix (or that the configuration switched it off).
    case unavailable(reason: String)

    public var adapter: String? {
        if case .available(let adapter) = self { adapter } else { nil }
    }
}

extension DiscoveredDevice {
    /// BLELink's parsed advertising fields as TuyaWire's input, for the Tuya advert parser.
    public var tuyaSighting: TuyaAdvertSighting {
        let data = self.data
        return TuyaAdvertSighting(
            address: address, rssi: rssi,
            fields: TuyaAdvertisingFields(
                serviceUUIDs: data.serviceUUIDs16, serviceData: data.serviceData16,
                manufacturerData: data.manufacturerData, localName: data.localName))
    }
}

/// Makes the scanner a pairing window listens with: the radio's (BlueZ, or the gateway's own
/// HCI host).
typealias BLEScannerFactory = @Sendable () -> any BLEDeviceScanning

/// A scan for Tuya BLE devices while pairing is permitted: each Tuya device heard is
/// reported once per window, with its product id, bound flag, signal and matching profile;
/// at most `limit` of them (anyone nearby can advertise as many addresses as they like, and
/// each report is an event stored and published).
actor BLEPairingScan {
    static let limit = 1024
    private let scanner: any BLEDeviceScanning
    private let library: ProfileLibrary
    private var reported: Set<String> = []
    private var consumer: Task<Void, Never>?

    /// Listens with `scanner`, or without one with BlueZ on `adapter`.
    init(scanner: (any BLEDeviceScanning)?, adapter: String, library: ProfileLibrary) {
        self.scanner = scanner ?? BLEScanner(adapter: adapter)
        self.library = library
    }

    /// Starts scanning; `found` is called for each Tuya device heard for the first time.
    func start(found: @escaping @Sendable (TuyaDiscoveredDevice) async -> Void) async throws {
        reported = []
        let stream = try await scanner.discoveries()
        consumer = Task { [weak self] in
            for await device in stream { await self?.heard(device, found: found) }
        }
    }

    private func heard(_ device: DiscoveredDevice, found: @Sendable (TuyaDiscoveredDevice) async -> Void) async {
        guard reported.count < Self.limit, !reported.contains(device.address),
            let tuya = TuyaDiscovery(sightings: [device.tuyaSighting], library: library).devices.first
        else { return }
        reported.insert(device.address)
        await found(tuya)
    }

    func stop() async {
        await scanner.stop()
        consumer?.cancel()
        consumer = nil
    }
}

extension TuyaDiscoveredDevice {
    /// The `device_found` event's data for a BLE device.
    var eventData: [String: JSONValue] {
        BridgeJSON.object(
            BLEDeviceFoundPayload(
                address: address, productID: productID, bound: isBound, rssi: rssi, profile: profile?.id))
    }
}

/// The `device_found` event's data for a BLE device: `{"transport": "ble", "address"}`, and
/// what its advertisement says when it says it (`product_id`, `bound`, `rssi`, the matching `profile`).
struct BLEDeviceFoundPayload: Encodable {
    var transport = "ble"
    var address: String
    var productID: String?
    var bound: Bool?
    var rssi: Int?
    var profile: String?

    enum CodingKeys: String, CodingKey {
        case transport, address, bound, rssi, profile
        case productID = "product_id"
    }
}
