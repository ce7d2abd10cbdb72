/// A Tuya BLE command code (protocol/TUYA.md §1.6; SDK `tuya_ble_data_handler.h`).
/// A struct rather than an enum so a code this gateway does not know still parses
/// and can be logged or answered.
public struct BLECommand: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// App → device: empty (or a 2-byte MTU); reply in `BLEDeviceInfo`.
    public static let deviceInfo = BLECommand(rawValue: 0x0000)
    /// App → device: bind with uuid, login-key prefix and devId (`BLEPairRequest`).
    public static let pair = BLECommand(rawValue: 0x0001)
    /// App → device: write DPs, protocol v3 (KLV with 1-byte lengths).
    public static let dpWriteV3 = BLECommand(rawValue: 0x0002)
    /// App → device: ask for all DPs; the device reports them afterwards.
    public static let query = BLECommand(rawValue: 0x0003)
    public static let unbind = BLECommand(rawValue: 0x0005)
    public static let reset = BLECommand(rawValue: 0x0006)
    /// App → device: write DPs, protocol v4 (`BLEDataPointWriteV4`).
    public static let dpWriteV4 = BLECommand(rawValue: 0x0027)
    /// Device → app: DP report v3, acked with an empty frame of the same command.
    public static let dpReportV3 = BLECommand(rawValue: 0x8001)
    /// Device → app: DP report v3 with a timestamp.
    public static let dpReportV3WithTime = BLECommand(rawValue: 0x8003)
    /// Device → app: "signed" DP report (HTB only, layout unverified).
    public static let dpReportSigned = BLECommand(rawValue: 0x8004)
    public static let dpReportSignedWithTime = BLECommand(rawValue: 0x8005)
    /// Device → app: DP report v4 (`BLEDataPointReportV4`).
    public static let dpReportV4 = BLECommand(rawValue: 0x8006)
    public static let dpReportV4WithTime = BLECommand(rawValue: 0x8007)
    /// Device → app: asks for unix time in ms, binary (format unverified).
    public static let timeRequestBinary = BLECommand(rawValue: 0x8010)
    /// Device → app: asks for time as a string; answer with `BLETimeStringReply`.
    public static let timeRequestString = BLECommand(rawValue: 0x8011)
    /// Device → app: asks for time as a date; answer with `BLETimeDateReply`.
    public static let timeRequestDate = BLECommand(rawValue: 0x8012)

    public var description: String {
        let digits = String(rawValue, radix: 16)
        return "0x" + String(repeating: "0", count: 4 - digits.count) + digits
    }
}
