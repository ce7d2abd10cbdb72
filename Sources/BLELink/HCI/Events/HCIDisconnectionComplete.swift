/// Disconnection Complete (Vol 4 Part E §7.7.5): Status (1) · Connection_Handle (2) · Reason
/// (1). Sent whoever ended the link: this host (reason 0x16 on this side), the device (0x13)
/// or the radio (0x08, supervision timeout).
public struct HCIDisconnectionComplete: Hashable, Sendable {
    public var status: HCIErrorCode
    public var handle: UInt16
    public var reason: HCIErrorCode

    public init(status: HCIErrorCode = .success, handle: UInt16, reason: HCIErrorCode) {
        self.status = status
        self.handle = handle
        self.reason = reason
    }

    public init(parameters: [UInt8]) throws(HCIPacketError) {
        var reader = HCIByteReader(parameters, packet: "Disconnection Complete event")
        status = HCIErrorCode(rawValue: try reader.uint8("Status"))
        handle = try reader.uint16("Connection_Handle") & 0x0FFF
        reason = HCIErrorCode(rawValue: try reader.uint8("Reason"))
        try reader.expectEnd()
    }

    public var parameters: [UInt8] {
        var bytes: [UInt8] = [status.rawValue]
        bytes.appendLittleEndian(handle)
        return bytes + [reason.rawValue]
    }
}
