/// LE Set Extended Scan Parameters (Vol 4 Part E §7.8.64), for controllers with extended
/// advertising: Own_Address_Type (1) · Scanning_Filter_Policy (1) · Scanning_PHYs (1), then for
/// each PHY bit set: Scan_Type (1) · Scan_Interval (2) · Scan_Window (2). This host scans the
/// LE 1M PHY only (bit 0), where Tuya devices advertise.
public struct HCILESetExtendedScanParametersCommand: HCIScanParametersCommand {
    public static let opcode = HCIOpcode.leSetExtendedScanParameters

    public var settings: HCIScanSettings

    public init(settings: HCIScanSettings) { self.settings = settings }

    public var parameters: [UInt8] {
        var bytes: [UInt8] = [settings.ownAddressType, 0x00, 0x01, settings.active ? 0x01 : 0x00]
        bytes.appendLittleEndian(settings.interval)
        bytes.appendLittleEndian(settings.window)
        return bytes
    }
}
