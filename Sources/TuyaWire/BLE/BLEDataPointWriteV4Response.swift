/// The device's 6-byte answer to a v4 DP write (protocol/TUYA.md §1.6):
/// `00 ‖ sn (4) ‖ status` with status 0 = ok, 1 = failed.
public struct BLEDataPointWriteV4Response: Hashable, Sendable {
    public static let length = 6

    public let sn: UInt32
    public let status: UInt8

    public init(sn: UInt32, status: UInt8) {
        self.sn = sn
        self.status = status
    }

    public init(bytes: [UInt8]) throws(WireError) {
        guard bytes.count == Self.length else {
            throw .lengthOutOfRange(field: "BLE v4 write response length", value: bytes.count, limit: Self.length)
        }
        guard bytes[0] == 0 else { throw .unsupportedVersion("DP write version \(bytes[0])") }
        sn = UInt32(bytes[1]) << 24 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 8 | UInt32(bytes[4])
        status = bytes[5]
    }

    public var isSuccess: Bool { status == 0 }
    public var encoded: [UInt8] { [0] + BLEBigEndian.bytes(sn) + [status] }
}
