/// LE Set Extended Scan Parameters (Vol 4 Part E §7.8.64), for controllers with extended
/// advertising: Own_Address_Type (1) · Scanning_Filter_Policy (1) · Scanning_PHYs (1), then for
/// each PHY bit set: Scan_Type (1) · Scan_Interval (2) · Scan_Window (2). This host scans the
/// LE 1M PHY only (bit 0), where Tuya devices advertise.
public struct HCILESetExtendedScanParametersCommand: HCICommand, Hashable {
    public static let opcode = HCIOpcode.leSetExtendedScanParameters

    public var active: Bool
    public var interval: UInt16
    public var window: UInt16
    public var ownAddressType: UInt8

    public init(active: Bool = true, interval: UInt16 = 0x0010, window: UInt16 = 0x0010, ownAddressType: UInt8 = 0) {
        self.active = active
        self.interval = interval
        self.window = window
        self.ownAddressType = ownAddressType
    }

    public var parameters: [UInt8] {
        var bytes: [UInt8] = [ownAddressType, 0x00, 0x01, active ? 0x01 : 0x00]
        bytes.appendLittleEndian(interval)
        bytes.appendLittleEndian(window)
        return bytes
    }
}
