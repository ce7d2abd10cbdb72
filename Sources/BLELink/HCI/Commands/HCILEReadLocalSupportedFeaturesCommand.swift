/// LE Read Local Supported Features (Vol 4 Part E §7.8.3): the controller's LE feature bits
/// (Vol 6 Part B §4.6).
public struct HCILEReadLocalSupportedFeaturesCommand: HCICommandWithReturn, Hashable {
    public static let opcode = HCIOpcode.leReadLocalSupportedFeatures
    public var parameters: [UInt8] { [] }

    public init() {}

    public static func decodeReturnParameters(_ bytes: ArraySlice<UInt8>) throws(HCIPacketError) -> HCILEFeatures {
        var reader = HCIByteReader(bytes, packet: "LE Read Local Supported Features return parameters")
        let mask = try reader.bytes(8, "LE_Features")
        try reader.expectEnd()
        return HCILEFeatures(
            rawValue: mask.enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) })
    }
}

/// LE feature bits this host looks at.
public struct HCILEFeatures: OptionSet, Hashable, Sendable {
    public var rawValue: UInt64

    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Bit 5: packets longer than 27 bytes on air.
    public static let dataPacketLengthExtension = HCILEFeatures(rawValue: 1 << 5)
    /// Bit 12: extended advertising, hence the extended scan and create-connection commands.
    /// A host then uses only those: mixing them with the legacy ones is disallowed (Vol 4 Part E
    /// §3.1.1).
    public static let extendedAdvertising = HCILEFeatures(rawValue: 1 << 12)
}
