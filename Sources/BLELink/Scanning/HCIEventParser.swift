/// Why an HCI event packet could not be read. Each case names the field and where it was.
public enum HCIEventError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The packet does not start with the HCI event packet type 0x04.
    case notAnEventPacket(packetType: UInt8?)
    /// Fewer bytes than a field needs.
    case truncated(field: String, needed: Int, available: Int)
    /// The event's parameter length disagrees with the bytes that arrived.
    case parameterLengthMismatch(declared: Int, actual: Int)
    /// A value the specification does not allow.
    case invalidField(field: String, value: Int)
    /// Bytes left after the last report.
    case trailingBytes(count: Int)

    public var description: String {
        switch self {
        case .notAnEventPacket(let type):
            "not an HCI event packet (packet type \(type.map { "0x" + String($0, radix: 16) } ?? "missing"))"
        case .truncated(let field, let needed, let available):
            "truncated LE advertising report: \(field) needs \(needed) bytes, \(available) left"
        case .parameterLengthMismatch(let declared, let actual):
            "HCI event parameter length \(declared) but \(actual) bytes follow"
        case .invalidField(let field, let value):
            "invalid \(field) \(value) in LE advertising report"
        case .trailingBytes(let count):
            "\(count) bytes left after the last advertising report"
        }
    }
}

/// An HCI event read from the adapter, as far as scanning cares.
public enum HCIEvent: Hashable, Sendable {
    /// One LE Advertising Report (subevent 0x02) or LE Extended Advertising Report (0x0D)
    /// event, which may carry several reports.
    case advertisingReports([AdvertisingReport])
    /// Any other event or LE subevent: read correctly and deliberately not used.
    case ignored(eventCode: UInt8, subevent: UInt8?)
}

/// Reads HCI event packets as a raw HCI socket delivers them:
/// `0x04` (event packet) · event code · parameter length · parameters.
///
/// Pure and bounds-checked: a short, oversized or inconsistent packet from a broken or hostile
/// controller throws `HCIEventError` and never traps. libbluetooth's `le_advertising_info`
/// has a flexible array member that Swift cannot import (INTEROP.md), hence this parser.
public enum HCIEventParser {
    public static let eventPacketType: UInt8 = 0x04
    public static let leMetaEvent: UInt8 = 0x3E
    public static let leAdvertisingReport: UInt8 = 0x02
    public static let leExtendedAdvertisingReport: UInt8 = 0x0D

    /// Legacy advertising data is at most 31 bytes (Core Specification Vol 6 Part B §2.3.1).
    static let legacyDataLimit = 31

    public static func parse(_ packet: some Collection<UInt8>) throws(HCIEventError) -> HCIEvent {
        var reader = Reader(Array(packet))
        guard let type = reader.bytes.first, type == eventPacketType else {
            throw .notAnEventPacket(packetType: reader.bytes.first)
        }
        reader.offset = 1
        let code = try reader.byte("event code")
        let length = Int(try reader.byte("parameter length"))
        guard reader.remaining == length else {
            throw .parameterLengthMismatch(declared: length, actual: reader.remaining)
        }
        guard code == leMetaEvent else { return .ignored(eventCode: code, subevent: nil) }
        let subevent = try reader.byte("LE subevent")
        switch subevent {
        case leAdvertisingReport:
            return .advertisingReports(try legacyReports(&reader))
        case leExtendedAdvertisingReport:
            return .advertisingReports(try extendedReports(&reader))
        default:
            return .ignored(eventCode: code, subevent: subevent)
        }
    }

    /// The reports of an LE Advertising Report (`subevent` 0x02) or LE Extended Advertising
    /// Report (0x0D) event, from the parameters after the subevent code; for the HCI host,
    /// which reads the event header itself.
    static func advertisingReports(subevent: UInt8, parameters: some Collection<UInt8>) throws(HCIEventError)
        -> [AdvertisingReport]
    {
        var reader = Reader(Array(parameters))
        return subevent == leExtendedAdvertisingReport ? try extendedReports(&reader) : try legacyReports(&reader)
    }

    /// LE Advertising Report parameters after the subevent. The specification draws the
    /// fields as parallel arrays, but controllers and the Linux kernel (`hci_le_adv_report_evt`)
    /// lay each report out whole: event type, address type, address, data length, data, RSSI.
    private static func legacyReports(_ reader: inout Reader) throws(HCIEventError) -> [AdvertisingReport] {
        let count = Int(try reader.byte("number of reports"))
        guard (1...25).contains(count) else { throw .invalidField(field: "number of reports", value: count) }
        var reports: [AdvertisingReport] = []
        for _ in 0..<count {
            let typeByte = try reader.byte("event type")
            guard let eventType = AdvertisingEventType(legacy: typeByte) else {
                throw .invalidField(field: "event type", value: Int(typeByte))
            }
            let addressType = try addressType(&reader, allowAnonymous: false)
            let address = AdvertisingReport.addressText(littleEndian: try reader.bytes(6, "address"))
            let dataLength = Int(try reader.byte("data length"))
            guard dataLength <= legacyDataLimit else { throw .invalidField(field: "data length", value: dataLength) }
            let data = try reader.bytes(dataLength, "advertising data")
            let rssi = Int8(bitPattern: try reader.byte("RSSI"))
            reports.append(
                AdvertisingReport(
                    eventType: eventType, addressType: addressType, address: address,
                    data: AdvertisingData(bytes: data), rssi: rssi == 127 ? nil : Int(rssi)))
        }
        guard reader.remaining == 0 else { throw .trailingBytes(count: reader.remaining) }
        return reports
    }

    /// LE Extended Advertising Report (Core Specification Vol 4 Part E §7.7.65.13), each report:
    /// event type (2, little-endian) · address type · address (6) · primary PHY · secondary
    /// PHY · SID · TX power · RSSI · periodic interval (2) · direct address type · direct
    /// address (6) · data length · data.
    private static func extendedReports(_ reader: inout Reader) throws(HCIEventError) -> [AdvertisingReport] {
        let count = Int(try reader.byte("number of reports"))
        guard (1...10).contains(count) else { throw .invalidField(field: "number of reports", value: count) }
        var reports: [AdvertisingReport] = []
        for _ in 0..<count {
            let typeBytes = try reader.bytes(2, "event type")
            let properties = UInt16(typeBytes[0]) | UInt16(typeBytes[1]) << 8
            let addressType = try addressType(&reader, allowAnonymous: true)
            let address = AdvertisingReport.addressText(littleEndian: try reader.bytes(6, "address"))
            let sid = try reader.bytes(4, "PHYs, SID and TX power")[2]
            let rssi = Int8(bitPattern: try reader.byte("RSSI"))
            _ = try reader.bytes(9, "periodic interval and direct address")
            let dataLength = Int(try reader.byte("data length"))
            let data = Array(try reader.bytes(dataLength, "advertising data"))
            let status = (properties >> 5) & 0x03
            // Only an extended PDU from an address is part of a chain (bit 4: a legacy PDU).
            let chained = properties & 0x10 == 0 && addressType != .anonymous
            reports.append(
                AdvertisingReport(
                    eventType: AdvertisingEventType(extendedProperties: properties), addressType: addressType,
                    address: address, data: AdvertisingData(bytes: data), rssi: rssi == 127 ? nil : Int(rssi),
                    isDataComplete: status == 0,
                    chain: chained ? .init(sid: sid, continues: status == 1, bytes: data) : nil))
        }
        guard reader.remaining == 0 else { throw .trailingBytes(count: reader.remaining) }
        return reports
    }

    private static func addressType(_ reader: inout Reader, allowAnonymous: Bool) throws(HCIEventError)
        -> BluetoothAddressType
    {
        let byte = try reader.byte("address type")
        guard let type = BluetoothAddressType(rawValue: byte), allowAnonymous || type != .anonymous else {
            throw .invalidField(field: "address type", value: Int(byte))
        }
        return type
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var remaining: Int { bytes.count - offset }

        mutating func byte(_ field: String) throws(HCIEventError) -> UInt8 {
            try bytes(1, field)[0]
        }

        mutating func bytes(_ count: Int, _ field: String) throws(HCIEventError) -> [UInt8] {
            guard count <= remaining else { throw .truncated(field: field, needed: count, available: remaining) }
            defer { offset += count }
            return Array(bytes[offset..<(offset + count)])
        }
    }
}
