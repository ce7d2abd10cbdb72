/// The timestamp of a timed DP report, 0x8003 and 0x8007 (protocol/TUYA.md §1.6):
/// `time_type (1)`, then for type 0 thirteen ASCII digits of unix milliseconds, for
/// type 1 a big-endian uint32 of unix seconds.
public enum BLEReportTime: Hashable, Sendable {
    case milliseconds(Int64)
    case seconds(UInt32)

    public var unixMilliseconds: Int64 {
        switch self {
        case .milliseconds(let ms): ms
        case .seconds(let s): Int64(s) * 1000
        }
    }

    init(reader: inout BLEByteReader) throws(WireError) {
        let type = try reader.readUInt8("time type")
        switch type {
        case 0: self = .milliseconds(try BLETimeZone.digits(try reader.read(13, "time")))
        case 1: self = .seconds(try reader.readUInt32("time"))
        default: throw .invalidField(field: "report time type", reason: "\(type) is not 0 (ms string) or 1 (seconds)")
        }
    }

    /// Fails for milliseconds that do not fit 13 digits.
    public func encoded() throws(WireError) -> [UInt8] {
        switch self {
        case .milliseconds(let ms):
            guard (0...BLETimeStringReply.maxMilliseconds).contains(ms) else {
                throw .invalidField(field: "report time", reason: "\(ms) ms does not fit 13 digits")
            }
            return [0] + BLETimeZone.thirteenDigits(ms)
        case .seconds(let s):
            return [1] + BLEBigEndian.bytes(s)
        }
    }
}
