/// A protocol-v4 DP report (protocol/TUYA.md §1.6): `00 ‖ sn (4) ‖ send flags ‖ mode`,
/// for 0x8007 a `BLEReportTime`, then a KLV list with 2-byte lengths.
///
/// Send flags: bit 7 set = the device wants no ack; low nibble 0 active, 1 passive.
/// Mode: 0 cloud and panel, 1 cloud, 2 panel, 3 none. Unless bit 7 is set the
/// gateway answers with the same 7-byte prefix and a status byte (`ack`).
public struct BLEDataPointReportV4: Hashable, Sendable {
    public static let prefixLength = 7

    public let sn: UInt32
    public let flags: UInt8
    public let mode: UInt8
    public let time: BLEReportTime?
    public let dataPoints: [BLEDataPoint]

    public init(sn: UInt32, flags: UInt8 = 0, mode: UInt8 = 0, time: BLEReportTime? = nil, dataPoints: [BLEDataPoint]) {
        self.sn = sn
        self.flags = flags
        self.mode = mode
        self.time = time
        self.dataPoints = dataPoints
    }

    /// `command` says whether a time follows the prefix (0x8007) or not (0x8006).
    public init(bytes: [UInt8], command: BLECommand) throws(WireError) {
        guard command == .dpReportV4 || command == .dpReportV4WithTime else {
            throw .invalidField(field: "command", reason: "\(command) is not a v4 DP report")
        }
        var reader = BLEByteReader(bytes, what: "BLE v4 report")
        let version = try reader.readUInt8("version")
        guard version == 0 else { throw .unsupportedVersion("DP report version \(version)") }
        sn = try reader.readUInt32("sn")
        flags = try reader.readUInt8("send flags")
        mode = try reader.readUInt8("mode")
        time = command == .dpReportV4WithTime ? try BLEReportTime(reader: &reader) : nil
        dataPoints = try BLEDataPointList(bytes: reader.readRest(), format: .v4).dataPoints
    }

    public var command: BLECommand { time == nil ? .dpReportV4 : .dpReportV4WithTime }
    public var wantsAck: Bool { flags & 0x80 == 0 }

    /// The 8-byte ack body: the report's prefix and `status` (0 = ok).
    public func ack(status: UInt8 = 0) -> [UInt8] {
        prefix + [status]
    }

    public func encoded() throws(WireError) -> [UInt8] {
        try prefix + (time?.encoded() ?? []) + BLEDataPointList(format: .v4, dataPoints: dataPoints).encoded
    }

    private var prefix: [UInt8] { [0] + BLEBigEndian.bytes(sn) + [flags, mode] }
}
