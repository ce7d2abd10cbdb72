/// The parts of a BLE advert and its scan response that Tuya uses, already split out of the
/// AD structures by the caller (BLELink's `AdvertisingData` has them; TuyaWire does not import
/// BLELink). Values are the bytes after the 16-bit UUID or the company id.
public struct TuyaAdvertisingFields: Hashable, Sendable {
    /// 16-bit service UUIDs from the complete and incomplete lists.
    public var serviceUUIDs: [UInt16]
    /// 16-bit service data by UUID.
    public var serviceData: [UInt16: [UInt8]]
    /// Manufacturer-specific data by company id.
    public var manufacturerData: [UInt16: [UInt8]]
    public var localName: String?

    public init(
        serviceUUIDs: [UInt16] = [], serviceData: [UInt16: [UInt8]] = [:],
        manufacturerData: [UInt16: [UInt8]] = [:], localName: String? = nil
    ) {
        self.serviceUUIDs = serviceUUIDs
        self.serviceData = serviceData
        self.manufacturerData = manufacturerData
        self.localName = localName
    }
}

/// Why an advert was not read as a Tuya advert. Neither is fatal: a scan skips the device.
public enum TuyaAdvertisementError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No Tuya service data (0xA201 or 0xFD50) and no Tuya service in the UUID list.
    case notTuya
    /// It claims to be Tuya, but a field is missing or out of shape.
    case malformed(layout: TuyaAdvertisement.Layout, reason: String)

    public var description: String {
        switch self {
        case .notTuya: "not a Tuya advert"
        case .malformed(let layout, let reason): "malformed Tuya \(layout.rawValue) advert: \(reason)"
        }
    }
}

/// What a Tuya BLE device says about itself before a connection (protocol/TUYA.md §1.2).
///
/// Two layouts exist. "A201" (classic SDK): service data 0xA201 carries the product id, the
/// scan response's manufacturer data (company 0x07D0) the bound flag, the protocol version and
/// the device uuid encrypted with MD5(product id). "FD50" (TuyaOS): service data 0xFD50 carries
/// a frame control with the bound flag and, while unbound, the product id; once bound that
/// slot holds part of an encrypted id. Fields a layout does not carry, or that the scan
/// response (not heard yet) would carry, are nil: nothing is guessed.
public struct TuyaAdvertisement: Hashable, Sendable {
    public enum Layout: String, Hashable, Sendable {
        case a201 = "A201"
        case fd50 = "FD50"
    }

    /// Service UUIDs and the company id (protocol/TUYA.md §1.2).
    public static let a201Service: UInt16 = 0xA201
    public static let fd50Service: UInt16 = 0xFD50
    public static let tuyaCompany: UInt16 = 0x07D0

    public var layout: Layout
    /// Whether the device is bound to an account. nil for an A201 device whose scan response
    /// has not been heard (the flag is in its manufacturer data).
    public var isBound: Bool?
    /// The product id (what `devices/` profiles list). A201: service data id type 0. FD50:
    /// only while unbound.
    public var productID: String?
    /// A201 service data id type 1: a product key instead of a product id.
    public var productKey: String?
    /// A201: the manufacturer data's protocol version byte (3 or 4), used for framing until
    /// the device-info reply says otherwise (§1.3).
    public var protocolVersion: UInt8?
    /// A201: the 16-character device uuid, decrypted from the manufacturer data with
    /// AES-128-CBC, key = IV = MD5(product id).
    public var deviceUUID: String?
    /// The 16 encrypted id bytes of the manufacturer data, as sent. For FD50 they cannot be
    /// decrypted here: the packing of the 20-character uuid is not public (§1.2, [unverified]).
    public var encryptedDeviceID: [UInt8]?
    /// FD50: the two frame-control bytes, first byte high (`31 00` SDK v3, `41 00` v4).
    public var frameControl: UInt16?
    /// FD50: frame-control bit 0x02, the device asks to be connected.
    public var requestsConnection: Bool?
    /// FD50 while bound: the id bytes of the service data, part of an encrypted device id.
    public var encryptedIDFragment: [UInt8]?
    public var localName: String?

    public init(
        layout: Layout, isBound: Bool? = nil, productID: String? = nil, productKey: String? = nil,
        protocolVersion: UInt8? = nil, deviceUUID: String? = nil, encryptedDeviceID: [UInt8]? = nil,
        frameControl: UInt16? = nil, requestsConnection: Bool? = nil, encryptedIDFragment: [UInt8]? = nil,
        localName: String? = nil
    ) {
        self.layout = layout
        self.isBound = isBound
        self.productID = productID
        self.productKey = productKey
        self.protocolVersion = protocolVersion
        self.deviceUUID = deviceUUID
        self.encryptedDeviceID = encryptedDeviceID
        self.frameControl = frameControl
        self.requestsConnection = requestsConnection
        self.encryptedIDFragment = encryptedIDFragment
        self.localName = localName
    }

    /// Reads an advert (with its scan response merged in, when heard). FD50 service data wins
    /// over A201 when a device sends both. Never traps on any input.
    public static func decode(_ fields: TuyaAdvertisingFields) throws(TuyaAdvertisementError) -> TuyaAdvertisement {
        if let serviceData = fields.serviceData[fd50Service] {
            return try decodeFD50(serviceData, fields)
        }
        if let serviceData = fields.serviceData[a201Service] {
            return try decodeA201(serviceData, fields)
        }
        if fields.serviceUUIDs.contains(fd50Service) {
            throw .malformed(layout: .fd50, reason: "lists service 0xFD50 but sends no service data for it")
        }
        if fields.serviceUUIDs.contains(a201Service) {
            throw .malformed(layout: .a201, reason: "lists service 0xA201 but sends no service data for it")
        }
        throw .notTuya
    }

    /// A201 (§1.2 a): service data `[id type][id…]`; manufacturer data `[flag][version]
    /// [encryption][capability ×2][reserved][encrypted id ×16]`.
    static func decodeA201(_ serviceData: [UInt8], _ fields: TuyaAdvertisingFields) throws(TuyaAdvertisementError)
        -> TuyaAdvertisement
    {
        var advert = TuyaAdvertisement(layout: .a201, localName: fields.localName)
        guard let idType = serviceData.first else {
            throw .malformed(layout: .a201, reason: "service data 0xA201 is empty")
        }
        let id = Array(serviceData.dropFirst())
        switch idType {
        case 0: advert.productID = try printableID(id, "product id", .a201)
        case 1: advert.productKey = try printableID(id, "product key", .a201)
        default: break  // an id type not documented: the device is Tuya, its id unknown
        }
        guard let manufacturer = fields.manufacturerData[tuyaCompany] else { return advert }
        guard manufacturer.count >= 2 else {
            throw .malformed(
                layout: .a201, reason: "manufacturer data 0x07D0 has \(manufacturer.count) bytes, needs at least 2")
        }
        advert.isBound = manufacturer[0] & 0x80 != 0
        advert.protocolVersion = manufacturer[1]
        if manufacturer.count >= 22 {
            let encrypted = Array(manufacturer[6..<22])
            advert.encryptedDeviceID = encrypted
            if let productID = advert.productID {
                advert.deviceUUID = decryptUUID(encrypted, productID: productID)
            }
        }
        return advert
    }

    /// FD50 (§1.2 b): service data `[frame control ×2][id type][id length][id…]`; manufacturer
    /// data `[encryption][capability ×2][flag][encrypted id ×16]`.
    static func decodeFD50(_ serviceData: [UInt8], _ fields: TuyaAdvertisingFields) throws(TuyaAdvertisementError)
        -> TuyaAdvertisement
    {
        guard serviceData.count >= 4 else {
            throw .malformed(
                layout: .fd50, reason: "service data 0xFD50 has \(serviceData.count) bytes, needs at least 4")
        }
        let control = UInt16(serviceData[0]) << 8 | UInt16(serviceData[1])
        let idLength = Int(serviceData[3])
        guard serviceData.count >= 4 + idLength else {
            throw .malformed(
                layout: .fd50, reason: "id length \(idLength) but \(serviceData.count - 4) id bytes follow")
        }
        let id = Array(serviceData[4..<(4 + idLength)])
        let isBound = serviceData[0] & 0x08 != 0
        var advert = TuyaAdvertisement(
            layout: .fd50, isBound: isBound, frameControl: control, requestsConnection: serviceData[0] & 0x02 != 0,
            localName: fields.localName)
        if isBound {
            advert.encryptedIDFragment = id
        } else {
            advert.productID = try printableID(id, "product id", .fd50)
        }
        if let manufacturer = fields.manufacturerData[tuyaCompany], manufacturer.count >= 20 {
            advert.encryptedDeviceID = Array(manufacturer[4..<20])
        }
        return advert
    }

    /// AES-128-CBC with key = IV = MD5(product id) (HTB `_decode_advertisement_data`); nil
    /// when the result is not 16 printable ASCII characters (a wrong product id, or not an id).
    static func decryptUUID(_ encrypted: [UInt8], productID: String) -> String? {
        let digest = MD5Digest.hash(Array(productID.utf8))
        guard let key = try? AESKey(bytes: digest),
            let plain = try? AESCipher.decryptCBC(encrypted, key: key, iv: digest),
            plain.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else { return nil }
        return String(decoding: plain, as: UTF8.self)
    }

    /// The inverse of `decryptUUID`, for simulated devices and tests.
    public static func encryptUUID(_ uuid: String, productID: String) throws(WireError) -> [UInt8] {
        let plain = Array(uuid.utf8)
        guard plain.count == 16 else {
            throw .invalidField(field: "device uuid", reason: "must be 16 characters, got \(plain.count)")
        }
        let digest = MD5Digest.hash(Array(productID.utf8))
        return try AESCipher.encryptCBC(plain, key: AESKey(bytes: digest), iv: digest)
    }

    private static func printableID(_ bytes: [UInt8], _ name: String, _ layout: Layout)
        throws(TuyaAdvertisementError) -> String
    {
        guard (1...32).contains(bytes.count) else {
            throw .malformed(layout: layout, reason: "\(name) of \(bytes.count) bytes (expected 1 to 32)")
        }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .malformed(layout: layout, reason: "\(name) is not printable ASCII")
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
