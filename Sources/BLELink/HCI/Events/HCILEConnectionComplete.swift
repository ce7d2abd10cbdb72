/// LE Connection Complete (subevent 0x01, Vol 4 Part E §7.7.65.1) or LE Enhanced Connection
/// Complete [v1] (0x0A, §7.7.65.10) / [v2] (0x29): the end of a connection attempt, made or not.
///
/// Common layout: Status (1) · Connection_Handle (2) · Role (1) · Peer_Address_Type (1) ·
/// Peer_Address (6), then in the enhanced events Local_Resolvable_Private_Address (6) ·
/// Peer_Resolvable_Private_Address (6), then Connection_Interval (2) · Peripheral_Latency (2) ·
/// Supervision_Timeout (2) · Central_Clock_Accuracy (1), and in [v2] Advertising_Handle (1) ·
/// Sync_Handle (2).
public struct HCILEConnectionComplete: Hashable, Sendable {
    public static let legacySubevent: UInt8 = 0x01
    public static let enhancedSubevent: UInt8 = 0x0A
    public static let enhancedV2Subevent: UInt8 = 0x29

    public var status: HCIErrorCode
    public var handle: UInt16
    /// True when this side is the central (Role 0x00).
    public var isCentral: Bool
    public var peerAddressType: BluetoothAddressType
    /// `AA:BB:CC:DD:EE:FF`.
    public var peerAddress: String
    /// In units of 1.25 ms.
    public var interval: UInt16
    public var latency: UInt16
    /// In units of 10 ms.
    public var supervisionTimeout: UInt16

    public init(
        status: HCIErrorCode, handle: UInt16, isCentral: Bool, peerAddressType: BluetoothAddressType,
        peerAddress: String, interval: UInt16, latency: UInt16, supervisionTimeout: UInt16
    ) {
        self.status = status
        self.handle = handle
        self.isCentral = isCentral
        self.peerAddressType = peerAddressType
        self.peerAddress = peerAddress
        self.interval = interval
        self.latency = latency
        self.supervisionTimeout = supervisionTimeout
    }

    /// Reads the parameters after the subevent code.
    public init(subevent: UInt8, parameters: some Collection<UInt8>) throws(HCIPacketError) {
        let name =
            subevent == Self.legacySubevent ? "LE Connection Complete event" : "LE Enhanced Connection Complete event"
        var reader = HCIByteReader(parameters, packet: name)
        status = HCIErrorCode(rawValue: try reader.uint8("Status"))
        handle = try reader.uint16("Connection_Handle") & 0x0FFF
        let role = try reader.uint8("Role")
        guard role <= 1 else { throw .invalidField(packet: name, field: "Role", value: Int(role)) }
        isCentral = role == 0
        let typeByte = try reader.uint8("Peer_Address_Type")
        guard let type = BluetoothAddressType(rawValue: typeByte), type != .anonymous else {
            throw .invalidField(packet: name, field: "Peer_Address_Type", value: Int(typeByte))
        }
        peerAddressType = type
        peerAddress = AdvertisingReport.addressText(littleEndian: try reader.bytes(6, "Peer_Address"))
        if subevent != Self.legacySubevent {
            _ = try reader.bytes(12, "Local and Peer_Resolvable_Private_Address")
        }
        interval = try reader.uint16("Connection_Interval")
        latency = try reader.uint16("Peripheral_Latency")
        supervisionTimeout = try reader.uint16("Supervision_Timeout")
        _ = try reader.uint8("Central_Clock_Accuracy")
        if subevent == Self.enhancedV2Subevent {
            _ = try reader.bytes(3, "Advertising_Handle and Sync_Handle")
        }
        try reader.expectEnd()
    }

    /// The legacy (0x01) event's parameters after the subevent code.
    public var legacyParameters: [UInt8] {
        var bytes: [UInt8] = [status.rawValue]
        bytes.appendLittleEndian(handle)
        bytes += [isCentral ? 0 : 1, peerAddressType.rawValue]
        bytes += AdvertisingReport.addressBytes(peerAddress) ?? [UInt8](repeating: 0, count: 6)
        for value in [interval, latency, supervisionTimeout] { bytes.appendLittleEndian(value) }
        return bytes + [0]
    }
}
