/// LE Set Scan Parameters (Vol 4 Part E §7.8.10), the legacy scan set-up:
/// LE_Scan_Type (1) · LE_Scan_Interval (2) · LE_Scan_Window (2) · Own_Address_Type (1) ·
/// Scanning_Filter_Policy (1).
public struct HCILESetScanParametersCommand: HCIScanParametersCommand {
    public static let opcode = HCIOpcode.leSetScanParameters

    public var settings: HCIScanSettings

    public init(settings: HCIScanSettings) { self.settings = settings }

    public var parameters: [UInt8] {
        var bytes: [UInt8] = [settings.active ? 0x01 : 0x00]
        bytes.appendLittleEndian(settings.interval)
        bytes.appendLittleEndian(settings.window)
        return bytes + [settings.ownAddressType, 0x00]
    }
}
