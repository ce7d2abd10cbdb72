import TuyaCore

/// A KLV list of data points, the body of DP writes and reports (protocol/TUYA.md
/// §1.8): `dp_id (1) ‖ type (1) ‖ len ‖ value`, repeated. `len` is 1 byte in protocol
/// v3 (0x0002, 0x8001, 0x8003) and 2 bytes big-endian in v4 (0x0027, 0x8006, 0x8007).
public struct BLEDataPointList: Hashable, Sendable {
    public enum Format: Hashable, Sendable {
        case v3
        case v4

        var maxPayloadLength: Int { self == .v3 ? Int(UInt8.max) : Int(UInt16.max) }
    }

    public let format: Format
    public let dataPoints: [BLEDataPoint]

    /// Fails when a payload does not fit the format's length field.
    public init(format: Format, dataPoints: [BLEDataPoint]) throws(WireError) {
        for dp in dataPoints where dp.payload.count > format.maxPayloadLength {
            throw .lengthOutOfRange(field: "\(dp.id) length", value: dp.payload.count, limit: format.maxPayloadLength)
        }
        self.format = format
        self.dataPoints = dataPoints
    }

    /// Parses a whole body. Rejects DP id 0, unknown type codes, a length beyond the
    /// buffer and a length the type does not allow. An empty body is an empty list.
    public init(bytes: some Collection<UInt8>, format: Format) throws(WireError) {
        var reader = BLEByteReader(bytes, what: "DP list")
        var dataPoints: [BLEDataPoint] = []
        while !reader.isAtEnd {
            let rawID = try reader.readUInt8("dp id")
            guard let id = DataPointID(rawValue: rawID) else {
                throw .invalidDataPoint(id: 0, reason: "DP id 0 does not exist")
            }
            let rawType = try reader.readUInt8("\(id) type")
            guard let type = DataPointType(rawValue: rawType) else {
                throw .invalidDataPoint(id: id.intValue, reason: "unknown type code \(rawType)")
            }
            let length =
                switch format {
                case .v3: Int(try reader.readUInt8("\(id) length"))
                case .v4: Int(try reader.readUInt16("\(id) length"))
                }
            let payload = try reader.read(length, "\(id) value")
            dataPoints.append(try BLEDataPoint(id: id, type: type, payload: payload))
        }
        self.format = format
        self.dataPoints = dataPoints
    }

    public var encoded: [UInt8] {
        dataPoints.flatMap { $0.klv(format: format) }
    }
}
