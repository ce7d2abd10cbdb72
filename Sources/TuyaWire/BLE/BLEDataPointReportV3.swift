/// A protocol-v3 DP report (protocol/TUYA.md §1.6): 0x8001 carries a KLV list with
/// 1-byte lengths, 0x8003 a `BLEReportTime` first. The gateway acks with an empty
/// frame of the same command (`BLECommandFrame.reply(sn:)`).
public struct BLEDataPointReportV3: Hashable, Sendable {
    public let time: BLEReportTime?
    public let dataPoints: [BLEDataPoint]

    public init(time: BLEReportTime? = nil, dataPoints: [BLEDataPoint]) {
        self.time = time
        self.dataPoints = dataPoints
    }

    /// `command` says whether a time comes first (0x8003) or not (0x8001).
    public init(bytes: [UInt8], command: BLECommand) throws(WireError) {
        var reader = BLEByteReader(bytes, what: "BLE v3 report")
        switch command {
        case .dpReportV3: time = nil
        case .dpReportV3WithTime: time = try BLEReportTime(reader: &reader)
        default: throw .invalidField(field: "command", reason: "\(command) is not a v3 DP report")
        }
        dataPoints = try BLEDataPointList(bytes: reader.readRest(), format: .v3).dataPoints
    }

    public var command: BLECommand { time == nil ? .dpReportV3 : .dpReportV3WithTime }

    public func encoded() throws(WireError) -> [UInt8] {
        try (time?.encoded() ?? []) + BLEDataPointList(format: .v3, dataPoints: dataPoints).encoded
    }
}
