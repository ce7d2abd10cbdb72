/// The device's 1-byte answer to the pair request (protocol/TUYA.md §1.6).
public enum BLEPairResult: UInt8, CaseIterable, Sendable {
    case paired = 0
    /// The uuid did not match; the device disconnects next.
    case failed = 1
    /// Already bound to this key: as good as `paired`.
    case alreadyBound = 2

    public init(bytes: [UInt8]) throws(WireError) {
        guard bytes.count == 1 else {
            throw .lengthOutOfRange(field: "BLE pair result length", value: bytes.count, limit: 1)
        }
        guard let result = BLEPairResult(rawValue: bytes[0]) else {
            throw .invalidField(field: "BLE pair result", reason: "unknown code \(bytes[0])")
        }
        self = result
    }

    public var isPaired: Bool { self != .failed }
    public var encoded: [UInt8] { [rawValue] }
}
