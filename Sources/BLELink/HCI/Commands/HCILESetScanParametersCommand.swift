/// LE Set Scan Parameters (Vol 4 Part E §7.8.10), the legacy scan set-up:
/// LE_Scan_Type (1) · LE_Scan_Interval (2) · LE_Scan_Window (2) · Own_Address_Type (1) ·
/// Scanning_Filter_Policy (1). Times in units of 0.625 ms.
public struct HCILESetScanParametersCommand: HCICommand, Hashable {
    public static let opcode = HCIOpcode.leSetScanParameters

    /// Active: the controller sends scan requests, so devices answer with their scan response,
    /// where Tuya puts its manufacturer data (protocol/TUYA.md §1.2).
    public var active: Bool
    public var interval: UInt16
    public var window: UInt16
    /// 0 public, 1 random.
    public var ownAddressType: UInt8

    public init(active: Bool = true, interval: UInt16 = 0x0010, window: UInt16 = 0x0010, ownAddressType: UInt8 = 0) {
        self.active = active
        self.interval = interval
        self.window = window
        self.ownAddressType = ownAddressType
    }

    public var parameters: [UInt8] {
        var bytes: [UInt8] = [active ? 0x01 : 0x00]
        bytes.appendLittleEndian(interval)
        bytes.appendLittleEndian(window)
        return bytes + [ownAddressType, 0x00]
    }
}
