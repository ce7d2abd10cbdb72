/// An HCI status or reason code (Core Specification Vol 1 Part F). Any byte is representable;
/// the ones a BLE central meets have names and plain-language descriptions.
public struct HCIErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    public static let success = HCIErrorCode(rawValue: 0x00)
    public static let unknownCommand = HCIErrorCode(rawValue: 0x01)
    public static let unknownConnectionIdentifier = HCIErrorCode(rawValue: 0x02)
    public static let hardwareFailure = HCIErrorCode(rawValue: 0x03)
    public static let pageTimeout = HCIErrorCode(rawValue: 0x04)
    public static let authenticationFailure = HCIErrorCode(rawValue: 0x05)
    public static let memoryCapacityExceeded = HCIErrorCode(rawValue: 0x07)
    public static let connectionTimeout = HCIErrorCode(rawValue: 0x08)
    public static let connectionLimitExceeded = HCIErrorCode(rawValue: 0x09)
    public static let commandDisallowed = HCIErrorCode(rawValue: 0x0C)
    public static let invalidParameters = HCIErrorCode(rawValue: 0x12)
    public static let remoteUserTerminatedConnection = HCIErrorCode(rawValue: 0x13)
    public static let remoteLowResources = HCIErrorCode(rawValue: 0x14)
    public static let remotePowerOff = HCIErrorCode(rawValue: 0x15)
    public static let localHostTerminatedConnection = HCIErrorCode(rawValue: 0x16)
    public static let unsupportedRemoteFeature = HCIErrorCode(rawValue: 0x1A)
    public static let llResponseTimeout = HCIErrorCode(rawValue: 0x22)
    public static let instantPassed = HCIErrorCode(rawValue: 0x28)
    public static let unacceptableConnectionParameters = HCIErrorCode(rawValue: 0x3B)
    public static let connectionFailedToBeEstablished = HCIErrorCode(rawValue: 0x3E)

    private static let names: [UInt8: String] = [
        0x00: "success", 0x01: "unknown HCI command", 0x02: "unknown connection identifier",
        0x03: "hardware failure", 0x04: "page timeout", 0x05: "authentication failure",
        0x07: "memory capacity exceeded",
        0x08: "connection timeout (supervision timeout: the device went out of range or lost power)",
        0x09: "connection limit exceeded", 0x0C: "command disallowed", 0x0D: "connection rejected: limited resources",
        0x11: "unsupported feature or parameter value", 0x12: "invalid HCI command parameters",
        0x13: "the remote device terminated the connection",
        0x14: "the remote device terminated the connection: low resources",
        0x15: "the remote device terminated the connection: powering off",
        0x16: "the connection was terminated by this host", 0x1A: "unsupported remote feature",
        0x1F: "unspecified error", 0x22: "LL response timeout", 0x28: "instant passed",
        0x3A: "controller busy", 0x3B: "unacceptable connection parameters", 0x3C: "advertising timeout",
        0x3D: "connection terminated: MIC failure", 0x3E: "connection failed to be established",
    ]

    /// The specification's meaning, then the code.
    public var description: String {
        "\(Self.names[rawValue] ?? "HCI error") (0x\(hex(rawValue)))"
    }
}
