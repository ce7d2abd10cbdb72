import TuyaCore

/// One advert as a scan heard it: the device's address and signal, and its Tuya fields.
public struct TuyaAdvertSighting: Hashable, Sendable {
    /// `AA:BB:CC:DD:EE:FF`.
    public var address: String
    /// dBm; nil if not measured.
    public var rssi: Int?
    public var fields: TuyaAdvertisingFields

    public init(address: String, rssi: Int?, fields: TuyaAdvertisingFields) {
        self.address = address
        self.rssi = rssi
        self.fields = fields
    }
}

/// A Tuya device found by `pair ble --scan`: what the listing shows.
public struct TuyaDiscoveredDevice: Hashable, Sendable {
    public var address: String
    public var rssi: Int?
    public var advertisement: TuyaAdvertisement
    /// Profiles listing the advert's product id: those for BLE first, then the others; empty
    /// when the product id is unknown or no profile lists it.
    public var profiles: [DeviceProfile]

    public var productID: String? { advertisement.productID }
    public var isBound: Bool? { advertisement.isBound }
    /// The profile pairing would pick, if any.
    public var profile: DeviceProfile? { profiles.first }
}

/// The result of sorting a scan's adverts into Tuya devices.
public struct TuyaDiscovery: Hashable, Sendable {
    /// Tuya devices, strongest signal first, then by address.
    public var devices: [TuyaDiscoveredDevice]
    /// Adverts that claimed to be Tuya but could not be read, by address, with the reason:
    /// skipped, but worth a line in verbose output.
    public var malformed: [String: TuyaAdvertisementError]

    /// Decodes each sighting and matches its product id against `library`. Non-Tuya adverts
    /// are dropped; malformed ones are kept apart. Pure.
    public init(sightings: [TuyaAdvertSighting], library: ProfileLibrary) {
        var devices: [TuyaDiscoveredDevice] = []
        var malformed: [String: TuyaAdvertisementError] = [:]
        for sighting in sightings {
            do {
                let advert = try TuyaAdvertisement.decode(sighting.fields)
                devices.append(
                    TuyaDiscoveredDevice(
                        address: sighting.address, rssi: sighting.rssi, advertisement: advert,
                        profiles: Self.profiles(for: advert.productID, in: library)))
            } catch .notTuya {
                continue
            } catch {
                malformed[sighting.address] = error
            }
        }
        self.devices = devices.sorted { lhs, rhs in
            let (left, right) = (lhs.rssi ?? Int.min, rhs.rssi ?? Int.min)
            return left != right ? left > right : lhs.address < rhs.address
        }
        self.malformed = malformed
    }

    static func profiles(for productID: String?, in library: ProfileLibrary) -> [DeviceProfile] {
        guard let productID else { return [] }
        let listed = library.profiles(forProductID: productID)
        return listed.filter { $0.transports.contains(.ble) } + listed.filter { !$0.transports.contains(.ble) }
    }
}
