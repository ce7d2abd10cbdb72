/// What kind of PDU an advertising report carries (Core Specification Vol 4 Part E
/// §7.7.65.2 and §7.7.65.13).
public enum AdvertisingEventType: Hashable, Sendable, CustomStringConvertible {
    /// ADV_IND: connectable and scannable, undirected. Tuya devices advertise this way.
    case advInd
    /// ADV_DIRECT_IND: connectable, directed at one central.
    case advDirectInd
    /// ADV_SCAN_IND: scannable, not connectable.
    case advScanInd
    /// ADV_NONCONN_IND: neither connectable nor scannable (beacons).
    case advNonconnInd
    /// SCAN_RSP: the answer to our scan request, with the rest of the device's data.
    case scanResponse
    /// An extended (non-legacy) advertising event, with its event-type bits as sent.
    case extended(properties: UInt16)

    /// The legacy event type byte of an LE Advertising Report; nil for a value the
    /// specification does not define.
    public init?(legacy byte: UInt8) {
        switch byte {
        case 0x00: self = .advInd
        case 0x01: self = .advDirectInd
        case 0x02: self = .advScanInd
        case 0x03: self = .advNonconnInd
        case 0x04: self = .scanResponse
        default: return nil
        }
    }

    /// The event-type bits of an LE Extended Advertising Report: bit 0 connectable, 1
    /// scannable, 2 directed, 3 scan response, 4 legacy PDU. Legacy PDUs map to their legacy
    /// case; anything else is `.extended` (without the data-status bits 5–6, which
    /// `AdvertisingReport.isDataComplete` carries).
    public init(extendedProperties bits: UInt16) {
        let legacy = bits & 0x10 != 0
        switch (legacy, bits & 0x0F) {
        case (true, 0b0011): self = .advInd
        case (true, 0b0101): self = .advDirectInd
        case (true, 0b0010): self = .advScanInd
        case (true, 0b0000): self = .advNonconnInd
        case (true, 0b1011), (true, 0b1010): self = .scanResponse
        default: self = bits & 0x08 != 0 ? .scanResponse : .extended(properties: bits & 0x1F)
        }
    }

    public var isScanResponse: Bool { self == .scanResponse }

    /// Whether a central may connect to the advertiser after this event.
    public var isConnectable: Bool {
        switch self {
        case .advInd, .advDirectInd: true
        case .advScanInd, .advNonconnInd, .scanResponse: false
        case .extended(let bits): bits & 0x01 != 0
        }
    }

    public var description: String {
        switch self {
        case .advInd: "ADV_IND"
        case .advDirectInd: "ADV_DIRECT_IND"
        case .advScanInd: "ADV_SCAN_IND"
        case .advNonconnInd: "ADV_NONCONN_IND"
        case .scanResponse: "SCAN_RSP"
        case .extended(let bits): "ADV_EXT(0x\(String(bits, radix: 16)))"
        }
    }
}

/// The kind of device address an advertiser uses (Core Specification Vol 4 Part E §7.7.65.2).
public enum BluetoothAddressType: UInt8, Hashable, Sendable {
    case publicDevice = 0x00
    case randomDevice = 0x01
    /// A resolved private address whose identity is public.
    case publicIdentity = 0x02
    /// A resolved private address whose identity is random static.
    case randomStaticIdentity = 0x03
    /// Extended reports only: anonymous advertising, no address.
    case anonymous = 0xFF
}

/// One advertisement or scan response heard by the adapter.
public struct AdvertisingReport: Hashable, Sendable {
    public var eventType: AdvertisingEventType
    public var addressType: BluetoothAddressType
    /// `AA:BB:CC:DD:EE:FF`, most significant byte first (the wire sends it reversed).
    public var address: String
    /// The AD structures of the report.
    public var data: AdvertisingData
    /// Signal strength in dBm; nil when the controller did not measure it (127).
    public var rssi: Int?
    /// False for an extended report whose data the controller cut short or will continue in
    /// a later report; always true for legacy reports.
    public var isDataComplete: Bool
    /// An extended advertising PDU's report (not a legacy PDU, not anonymous): its part of a
    /// chain whose data `ScanTable` joins; nil for others.
    public var chain: ChainPart?

    /// One report of an advertising set's data, which a controller may split over several.
    public struct ChainPart: Hashable, Sendable {
        /// The advertising set (SID): one address may advertise several at once.
        public var sid: UInt8
        /// More data follows in the next report of the set (data status "incomplete, more
        /// data to come").
        public var continues: Bool
        /// The AD bytes as sent (a part may end inside an AD structure).
        public var bytes: [UInt8]

        public init(sid: UInt8, continues: Bool, bytes: [UInt8]) {
            self.sid = sid
            self.continues = continues
            self.bytes = bytes
        }
    }

    public init(
        eventType: AdvertisingEventType, addressType: BluetoothAddressType, address: String,
        data: AdvertisingData, rssi: Int?, isDataComplete: Bool = true, chain: ChainPart? = nil
    ) {
        self.eventType = eventType
        self.addressType = addressType
        self.address = address
        self.data = data
        self.rssi = rssi
        self.isDataComplete = isDataComplete
        self.chain = chain
    }

    /// Six address bytes as sent (least significant first) → `AA:BB:CC:DD:EE:FF`.
    public static func addressText(littleEndian bytes: some Collection<UInt8>) -> String {
        let digits = Array("0123456789ABCDEF")
        return bytes.reversed().map { String([digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]]) }
            .joined(separator: ":")
    }

    /// `AA:BB:CC:DD:EE:FF` (either case) → the six bytes least significant first; nil for
    /// anything else.
    public static func addressBytes(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard part.count == 2, part.allSatisfy(\.isHexDigit), let byte = UInt8(part, radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes.reversed()
    }
}
