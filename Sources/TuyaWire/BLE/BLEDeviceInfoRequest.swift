/// The body of the 0x0000 device-info request (protocol/TUYA.md §1.6): empty, as HTB
/// sends it, or the app's 2-byte MTU data length, which the SDK v4 handler requires.
public struct BLEDeviceInfoRequest: Hashable, Sendable {
    public var mtu: UInt16?

    public init(mtu: UInt16? = nil) {
        self.mtu = mtu
    }

    public init(bytes: [UInt8]) throws(WireError) {
        switch bytes.count {
        case 0: mtu = nil
        case 2: mtu = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
        default: throw .lengthOutOfRange(field: "BLE device-info request length", value: bytes.count, limit: 2)
        }
    }

    public var encoded: [UInt8] { mtu.map(BLEBigEndian.bytes) ?? [] }
}
