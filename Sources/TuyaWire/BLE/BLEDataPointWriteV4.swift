/// The body of a protocol-v4 DP write, 0x0027 (protocol/TUYA.md §1.6):
/// `00 (DP-write version) ‖ sn (4) ‖ KLV list with 2-byte lengths`. The device
/// answers with `BLEDataPointWriteV4Response`, echoing `sn`.
public struct BLEDataPointWriteV4: Hashable, Sendable {
    public let sn: UInt32
    public let dataPoints: [BLEDataPoint]

    public init(sn: UInt32, dataPoints: [BLEDataPoint]) {
        self.sn = sn
        self.dataPoints = dataPoints
    }

    public init(bytes: [UInt8]) throws(WireError) {
        var reader = BLEByteReader(bytes, what: "BLE v4 DP write")
        let version = try reader.readUInt8("version")
        guard version == 0 else { throw .unsupportedVersion("DP write version \(version)") }
        sn = try reader.readUInt32("sn")
        dataPoints = try BLEDataPointList(bytes: reader.readRest(), format: .v4).dataPoints
    }

    public func encoded() throws(WireError) -> [UInt8] {
        try [0] + BLEBigEndian.bytes(sn) + BLEDataPointList(format: .v4, dataPoints: dataPoints).encoded
    }
}
