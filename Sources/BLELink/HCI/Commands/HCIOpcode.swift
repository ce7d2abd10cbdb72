/// An HCI command opcode: the OpCode Group Field in the top 6 bits, the OpCode Command Field in
/// the low 10 (Core Specification Vol 4 Part E §5.4.1). Sent little-endian.
public struct HCIOpcode: Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16

    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    public init(group: UInt16, command: UInt16) {
        rawValue = (group & 0x3F) << 10 | (command & 0x3FF)
    }

    public var group: UInt16 { rawValue >> 10 }
    public var command: UInt16 { rawValue & 0x3FF }

    // Link Control (OGF 0x01)
    public static let disconnect = HCIOpcode(group: 0x01, command: 0x0006)
    // Controller & Baseband (OGF 0x03)
    public static let setEventMask = HCIOpcode(group: 0x03, command: 0x0001)
    public static let reset = HCIOpcode(group: 0x03, command: 0x0003)
    // Informational (OGF 0x04)
    public static let readLocalSupportedCommands = HCIOpcode(group: 0x04, command: 0x0002)
    public static let readBufferSize = HCIOpcode(group: 0x04, command: 0x0005)
    public static let readBDAddr = HCIOpcode(group: 0x04, command: 0x0009)
    // LE Controller (OGF 0x08)
    public static let leSetEventMask = HCIOpcode(group: 0x08, command: 0x0001)
    public static let leReadBufferSize = HCIOpcode(group: 0x08, command: 0x0002)
    public static let leReadLocalSupportedFeatures = HCIOpcode(group: 0x08, command: 0x0003)
    public static let leSetScanParameters = HCIOpcode(group: 0x08, command: 0x000B)
    public static let leSetScanEnable = HCIOpcode(group: 0x08, command: 0x000C)
    public static let leCreateConnection = HCIOpcode(group: 0x08, command: 0x000D)
    public static let leCreateConnectionCancel = HCIOpcode(group: 0x08, command: 0x000E)
    public static let leSetExtendedScanParameters = HCIOpcode(group: 0x08, command: 0x0041)
    public static let leSetExtendedScanEnable = HCIOpcode(group: 0x08, command: 0x0042)
    public static let leExtendedCreateConnection = HCIOpcode(group: 0x08, command: 0x0043)
    public static let leReadBufferSizeV2 = HCIOpcode(group: 0x08, command: 0x0060)

    private static let names: [HCIOpcode: String] = [
        .disconnect: "Disconnect", .setEventMask: "Set Event Mask", .reset: "Reset",
        .readLocalSupportedCommands: "Read Local Supported Commands", .readBufferSize: "Read Buffer Size",
        .readBDAddr: "Read BD_ADDR", .leSetEventMask: "LE Set Event Mask", .leReadBufferSize: "LE Read Buffer Size",
        .leReadLocalSupportedFeatures: "LE Read Local Supported Features",
        .leSetScanParameters: "LE Set Scan Parameters", .leSetScanEnable: "LE Set Scan Enable",
        .leCreateConnection: "LE Create Connection", .leCreateConnectionCancel: "LE Create Connection Cancel",
        .leSetExtendedScanParameters: "LE Set Extended Scan Parameters",
        .leSetExtendedScanEnable: "LE Set Extended Scan Enable",
        .leExtendedCreateConnection: "LE Extended Create Connection",
        .leReadBufferSizeV2: "LE Read Buffer Size [v2]",
    ]

    public var description: String {
        Self.names[self] ?? "HCI command 0x\(hex16(rawValue))"
    }
}
