/// The 44-byte body of the 0x0001 pair request (protocol/TUYA.md §1.6): the device
/// uuid (16 ASCII), the first six characters of the local key, and the devId (up to
/// 22 ASCII, zero-padded). A uuid mismatch makes the device answer "failed" and
/// disconnect.
///
/// `description` leaves out the key prefix.
public struct BLEPairRequest: Hashable, Sendable, CustomStringConvertible {
    public static let length = 44

    public let uuid: String
    public let loginKeyPrefix: String
    public let devId: String

    public init(uuid: String, loginKeyPrefix: String, devId: String) throws(WireError) {
        guard Self.isASCII(uuid), uuid.utf8.count == 16 else {
            throw .invalidField(field: "uuid", reason: "a Tuya BLE uuid is 16 ASCII characters")
        }
        guard Self.isASCII(loginKeyPrefix), loginKeyPrefix.utf8.count == 6 else {
            throw .invalidKey("the pair request carries the first 6 ASCII characters of the local key")
        }
        guard Self.isASCII(devId), (1...22).contains(devId.utf8.count) else {
            throw .invalidField(field: "devId", reason: "a devId is 1 to 22 ASCII characters")
        }
        self.uuid = uuid
        self.loginKeyPrefix = loginKeyPrefix
        self.devId = devId
    }

    /// Takes the prefix from the whole local key.
    public init(uuid: String, localKey: String, devId: String) throws(WireError) {
        try self.init(uuid: uuid, loginKeyPrefix: String(localKey.prefix(6)), devId: devId)
    }

    public init(bytes: [UInt8]) throws(WireError) {
        guard bytes.count == Self.length else {
            throw .lengthOutOfRange(field: "BLE pair request length", value: bytes.count, limit: Self.length)
        }
        let devIdBytes = Array(bytes[22..<44].prefix { $0 != 0 })
        guard bytes[22..<44].dropFirst(devIdBytes.count).allSatisfy({ $0 == 0 }) else {
            throw .invalidField(field: "devId", reason: "bytes after the zero padding")
        }
        guard let uuid = Self.ascii(Array(bytes[0..<16])), let devId = Self.ascii(devIdBytes),
            let prefix = Self.ascii(Array(bytes[16..<22]))
        else {
            throw .invalidField(field: "BLE pair request", reason: "uuid, key prefix and devId must be ASCII")
        }
        try self.init(uuid: uuid, loginKeyPrefix: prefix, devId: devId)
    }

    public var encoded: [UInt8] {
        let devIdBytes = Array(devId.utf8)
        return Array(uuid.utf8) + Array(loginKeyPrefix.utf8) + devIdBytes
            + [UInt8](repeating: 0, count: 22 - devIdBytes.count)
    }

    public var description: String { "BLEPairRequest(uuid: \(uuid), devId: \(devId))" }

    private static func isASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 > 0 && $0 < 0x80 }
    }

    private static func ascii(_ bytes: [UInt8]) -> String? {
        guard bytes.allSatisfy({ $0 > 0 && $0 < 0x80 }) else { return nil }
        return BLEText.utf8(bytes)
    }
}
