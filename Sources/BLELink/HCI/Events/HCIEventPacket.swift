/// An HCI event packet after its H4 indicator: Event_Code (1) · Parameter_Total_Length (1) ·
/// parameters (Core Specification Vol 4 Part E §5.4.4).
public struct HCIEventPacket: Hashable, Sendable {
    public static let disconnectionComplete: UInt8 = 0x05
    public static let commandComplete: UInt8 = 0x0E
    public static let commandStatus: UInt8 = 0x0F
    public static let hardwareError: UInt8 = 0x10
    public static let numberOfCompletedPackets: UInt8 = 0x13
    public static let dataBufferOverflow: UInt8 = 0x1A
    public static let leMeta: UInt8 = 0x3E

    public var code: UInt8
    public var parameters: [UInt8]

    public init(code: UInt8, parameters: [UInt8]) {
        self.code = code
        self.parameters = parameters
    }

    /// Reads the body of an H4 event packet; the declared length must match exactly.
    public init(body: some Collection<UInt8>) throws(HCIPacketError) {
        var reader = HCIByteReader(body, packet: "HCI event")
        code = try reader.uint8("Event_Code")
        let length = Int(try reader.uint8("Parameter_Total_Length"))
        guard reader.remaining == length else {
            throw .lengthMismatch(packet: "HCI event 0x\(hex(code))", declared: length, actual: reader.remaining)
        }
        parameters = reader.rest()
    }

    /// Event code, length, parameters (at most 255 bytes of them are kept).
    public var body: [UInt8] {
        let kept = parameters.prefix(255)
        return [code, UInt8(kept.count)] + kept
    }

    public var h4Packet: H4Packet { H4Packet(type: .event, body: body) }
}
