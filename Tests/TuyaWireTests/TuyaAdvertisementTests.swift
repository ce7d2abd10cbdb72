import Testing
import TuyaCore
import TuyaWire
import DeviceSimulator
import YoullTestSupport

/// Adverts built byte by byte from the layouts of protocol/TUYA.md §1.2. Values are the bytes
/// after the 16-bit UUID or the company id, as `AdvertisingData` hands them over.
enum TuyaAdvertVectors {
    static let productID = "tfvqm3gk"
    static let uuid = "tuya1234abcd5678"
    /// AES-128-CBC(key = IV = MD5("tfvqm3gk"), "tuya1234abcd5678"), computed outside this
    /// project, twice, with the same result:
    ///   python3: hashlib.md5(b"tfvqm3gk") → 4fdbd945907ab52c077b65217664394d, then
    ///            cryptography's Cipher(AES(k), CBC(k)).encryptor() over the uuid;
    ///   openssl: printf tuya1234abcd5678 | openssl enc -aes-128-cbc -nopad -K <md5> -iv <md5>.
    static let encryptedUUID = hexBytes("4ea832b7d4f246d090cde0b32ed308d4")

    /// Service data 0xA201: id type 0 (product id), then the 8 ASCII characters.
    static let a201ServiceData: [UInt8] = [0x00] + Array(productID.utf8)

    /// Manufacturer data 0x07D0: flag (bit 7 bound), protocol version 3, encryption 0,
    /// capability 00 00, reserved 00, then the 16 encrypted id bytes.
    static func a201Manufacturer(bound: Bool, id: [UInt8] = encryptedUUID) -> [UInt8] {
        [bound ? 0x80 : 0x00, 0x03, 0x00, 0x00, 0x00, 0x00] + id
    }

    static func a201(bound: Bool = false, withScanResponse: Bool = true) -> TuyaAdvertisingFields {
        TuyaAdvertisingFields(
            serviceUUIDs: [0xA201], serviceData: [0xA201: a201ServiceData],
            manufacturerData: withScanResponse ? [0x07D0: a201Manufacturer(bound: bound)] : [:],
            localName: withScanResponse ? "TY" : nil)
    }

    /// Service data 0xFD50: frame control `41 00` (v4, unbound) or `49 00` (bound bit 0x08),
    /// id type 0, id length 8, the id bytes.
    static func fd50(bound: Bool, id: [UInt8] = Array(productID.utf8)) -> TuyaAdvertisingFields {
        TuyaAdvertisingFields(
            serviceUUIDs: [0xFD50],
            serviceData: [0xFD50: [bound ? 0x49 : 0x41, 0x00, 0x00, UInt8(id.count)] + id],
            manufacturerData: [0x07D0: [0x00, 0x00, 0x03, 0x00] + encryptedUUID], localName: "TY")
    }
}

@Suite("Tuya BLE adverts (protocol/TUYA.md §1.2)")
struct TuyaAdvertisementTests {
    @Test("the project's AES gives the independently computed encrypted uuid")
    func encryptionMatchesIndependentVector() throws {
        #expect(MD5Digest.hash(Array("tfvqm3gk".utf8)) == hexBytes("4fdbd945907ab52c077b65217664394d"))
        #expect(
            try TuyaAdvertisement.encryptUUID(TuyaAdvertVectors.uuid, productID: TuyaAdvertVectors.productID)
                == TuyaAdvertVectors.encryptedUUID)
    }

    @Test("an unbound A201 advert with its scan response gives product id, version and the decrypted uuid")
    func a201Unbound() throws {
        let advert = try TuyaAdvertisement.decode(TuyaAdvertVectors.a201())
        #expect(advert.layout == .a201)
        #expect(advert.productID == "tfvqm3gk")
        #expect(advert.isBound == false)
        #expect(advert.protocolVersion == 3)
        #expect(advert.deviceUUID == "tuya1234abcd5678")
        #expect(advert.encryptedDeviceID == TuyaAdvertVectors.encryptedUUID)
        #expect(advert.localName == "TY")
    }

    @Test("bit 7 of the A201 manufacturer flag means bound")
    func a201Bound() throws {
        #expect(try TuyaAdvertisement.decode(TuyaAdvertVectors.a201(bound: true)).isBound == true)
    }

    @Test("a uuid built with the project's own AES for another product decrypts back")
    func a201RoundTrip() throws {
        let encrypted = try TuyaAdvertisement.encryptUUID("abcdefgh12345678", productID: "if1nolcm")
        let fields = TuyaAdvertisingFields(
            serviceData: [0xA201: [0] + Array("if1nolcm".utf8)],
            manufacturerData: [0x07D0: TuyaAdvertVectors.a201Manufacturer(bound: false, id: encrypted)])
        #expect(try TuyaAdvertisement.decode(fields).deviceUUID == "abcdefgh12345678")
    }

    @Test("without the scan response an A201 advert still gives its product id; bound and uuid stay unknown")
    func a201WithoutScanResponse() throws {
        let advert = try TuyaAdvertisement.decode(TuyaAdvertVectors.a201(withScanResponse: false))
        #expect(advert.productID == "tfvqm3gk")
        #expect(advert.isBound == nil)
        #expect(advert.deviceUUID == nil)
        #expect(advert.protocolVersion == nil)
    }

    @Test("A201 id type 1 is a product key: no uuid is decrypted from it")
    func a201ProductKey() throws {
        var fields = TuyaAdvertVectors.a201()
        fields.serviceData[0xA201] = [0x01] + Array("keyabcdefgh12345".utf8)
        let advert = try TuyaAdvertisement.decode(fields)
        #expect(advert.productKey == "keyabcdefgh12345")
        #expect(advert.productID == nil)
        #expect(advert.deviceUUID == nil)
        #expect(advert.isBound == false)
    }

    @Test("an encrypted id that does not decrypt to printable text leaves the uuid unknown")
    func a201WrongProduct() throws {
        var fields = TuyaAdvertVectors.a201()
        fields.serviceData[0xA201] = [0x00] + Array("otherpid".utf8)
        let advert = try TuyaAdvertisement.decode(fields)
        #expect(advert.productID == "otherpid")
        #expect(advert.deviceUUID == nil)
        #expect(advert.encryptedDeviceID == TuyaAdvertVectors.encryptedUUID)
    }

    @Test("an unbound FD50 advert gives frame control, the product id, and the encrypted id as sent")
    func fd50Unbound() throws {
        let advert = try TuyaAdvertisement.decode(TuyaAdvertVectors.fd50(bound: false))
        #expect(advert.layout == .fd50)
        #expect(advert.frameControl == 0x4100)
        #expect(advert.isBound == false)
        #expect(advert.requestsConnection == false)
        #expect(advert.productID == "tfvqm3gk")
        #expect(advert.encryptedDeviceID == TuyaAdvertVectors.encryptedUUID)
        #expect(advert.deviceUUID == nil)
        #expect(advert.protocolVersion == nil)
    }

    @Test("a bound FD50 advert hides its product id: the id bytes are kept as an encrypted fragment")
    func fd50Bound() throws {
        let fragment: [UInt8] = [0xDE, 0xAD, 0xBE, 0xEF, 0x00, 0x01, 0x02, 0x03]
        let advert = try TuyaAdvertisement.decode(TuyaAdvertVectors.fd50(bound: true, id: fragment))
        #expect(advert.isBound == true)
        #expect(advert.productID == nil)
        #expect(advert.encryptedIDFragment == fragment)
    }

    @Test("FD50 frame-control bit 0x02 is a connection request")
    func fd50ConnectionRequest() throws {
        var fields = TuyaAdvertVectors.fd50(bound: false)
        fields.serviceData[0xFD50]![0] = 0x43  // TCK's frame control
        let advert = try TuyaAdvertisement.decode(fields)
        #expect(advert.requestsConnection == true)
        #expect(advert.isBound == false)
    }

    @Test("an advert without Tuya services is not Tuya")
    func notTuya() {
        let fields = TuyaAdvertisingFields(
            serviceUUIDs: [0x180F], serviceData: [0x180F: [0x64]], manufacturerData: [0x004C: [0x02, 0x15]])
        #expect(throws: TuyaAdvertisementError.notTuya) { try TuyaAdvertisement.decode(fields) }
        #expect(throws: TuyaAdvertisementError.notTuya) { try TuyaAdvertisement.decode(TuyaAdvertisingFields()) }
    }

    @Test(
        "broken Tuya adverts are reported as malformed with the reason",
        arguments: [
            (
                TuyaAdvertisingFields(serviceUUIDs: [0xA201]),
                "malformed Tuya A201 advert: lists service 0xA201 but sends no service data for it"
            ),
            (
                TuyaAdvertisingFields(serviceData: [0xA201: []]),
                "malformed Tuya A201 advert: service data 0xA201 is empty"
            ),
            (
                TuyaAdvertisingFields(serviceData: [0xA201: [0x00]]),
                "malformed Tuya A201 advert: product id of 0 bytes (expected 1 to 32)"
            ),
            (
                TuyaAdvertisingFields(serviceData: [0xA201: [0x00, 0x41, 0x1B, 0x5B]]),
                "malformed Tuya A201 advert: product id is not printable ASCII"
            ),
            (
                TuyaAdvertisingFields(
                    serviceData: [0xA201: TuyaAdvertVectors.a201ServiceData], manufacturerData: [0x07D0: [0x80]]),
                "malformed Tuya A201 advert: manufacturer data 0x07D0 has 1 bytes, needs at least 2"
            ),
            (
                TuyaAdvertisingFields(serviceData: [0xFD50: [0x41, 0x00, 0x00]]),
                "malformed Tuya FD50 advert: service data 0xFD50 has 3 bytes, needs at least 4"
            ),
            (
                TuyaAdvertisingFields(serviceData: [0xFD50: [0x41, 0x00, 0x00, 0x08, 0x61, 0x62]]),
                "malformed Tuya FD50 advert: id length 8 but 2 id bytes follow"
            ),
            (
                TuyaAdvertisingFields(serviceUUIDs: [0xFD50]),
                "malformed Tuya FD50 advert: lists service 0xFD50 but sends no service data for it"
            ),
        ])
    func malformed(fields: TuyaAdvertisingFields, message: String) {
        do {
            _ = try TuyaAdvertisement.decode(fields)
            Issue.record("decoded a broken advert")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test("five thousand random and mutated adverts never trap the decoder")
    func fuzz() {
        var generator = SeededGenerator(seed: 0xAD5)
        let seeds = [
            TuyaAdvertVectors.a201(), TuyaAdvertVectors.fd50(bound: false), TuyaAdvertVectors.fd50(bound: true),
        ]
        var decoded = 0
        for round in 0..<5_000 {
            var fields = seeds[round % seeds.count]
            for key in Array(fields.serviceData.keys) {
                fields.serviceData[key] = BLEFuzzTests.mutate(fields.serviceData[key]!, using: &generator)
            }
            for key in Array(fields.manufacturerData.keys) {
                fields.manufacturerData[key] = BLEFuzzTests.mutate(fields.manufacturerData[key]!, using: &generator)
            }
            if let advert = try? TuyaAdvertisement.decode(fields) {
                decoded += 1
                if let uuid = advert.deviceUUID { #expect(uuid.utf8.count == 16) }
            }
        }
        // Mutations keep some adverts readable: the decoder is exercised on both paths.
        #expect(decoded > 100)
        #expect(decoded < 5_000)
    }
}

@Suite("Tuya BLE discovery listing")
struct TuyaDiscoveryTests {
    static func profile(_ id: String, productIDs: [String], transports: Set<Transport>) -> DeviceProfile {
        DeviceProfile(
            id: id, name: id, category: .diffuser, productIDs: productIDs, transports: transports,
            dataPoints: [DataPointSpec(id: bleDP(1), code: "switch", type: .bool)],
            capabilities: [.power: CapabilityBinding(dataPoint: bleDP(1))])
    }

    static let library = ProfileLibrary(profiles: [
        profile("a-wifi-diffuser", productIDs: ["tfvqm3gk"], transports: [.mqtt]),
        profile("z-ble-diffuser", productIDs: ["tfvqm3gk"], transports: [.ble]),
    ])

    @Test("Tuya devices are listed strongest first with product id, bound flag and the BLE profile first")
    func listing() {
        let discovery = TuyaDiscovery(
            sightings: [
                TuyaAdvertSighting(address: "11:11:11:11:11:11", rssi: -80, fields: TuyaAdvertVectors.a201()),
                TuyaAdvertSighting(
                    address: "22:22:22:22:22:22", rssi: -40,
                    fields: TuyaAdvertVectors.fd50(bound: true, id: [1, 2, 3, 4])),
                TuyaAdvertSighting(
                    address: "33:33:33:33:33:33", rssi: -30,
                    fields: TuyaAdvertisingFields(manufacturerData: [0x004C: [0x02, 0x15]])),
                TuyaAdvertSighting(
                    address: "44:44:44:44:44:44", rssi: -50, fields: TuyaAdvertisingFields(serviceUUIDs: [0xA201])),
            ], library: Self.library)
        #expect(discovery.devices.map(\.address) == ["22:22:22:22:22:22", "11:11:11:11:11:11"])
        let bound = discovery.devices[0]
        #expect(bound.isBound == true)
        #expect(bound.productID == nil)
        #expect(bound.profile == nil)
        let unbound = discovery.devices[1]
        #expect(unbound.productID == "tfvqm3gk")
        #expect(unbound.isBound == false)
        #expect(unbound.rssi == -80)
        #expect(unbound.profiles.map(\.id) == ["z-ble-diffuser", "a-wifi-diffuser"])
        #expect(unbound.profile?.id == "z-ble-diffuser")
        #expect(Array(discovery.malformed.keys) == ["44:44:44:44:44:44"])
    }

    @Test("a product id no profile lists has no profile")
    func unknownProduct() {
        var fields = TuyaAdvertVectors.a201()
        fields.serviceData[0xA201] = [0x00] + Array("unknown1".utf8)
        let discovery = TuyaDiscovery(
            sightings: [TuyaAdvertSighting(address: "11:11:11:11:11:11", rssi: nil, fields: fields)],
            library: Self.library)
        #expect(discovery.devices.first?.profiles == [])
        #expect(discovery.devices.first?.productID == "unknown1")
    }
}
