/// LE Set Scan Enable (Vol 4 Part E §7.8.11): LE_Scan_Enable (1) · Filter_Duplicates (1).
/// Duplicate filtering stays off: `ScanTable` deduplicates, and RSSI stays live.
public struct HCILESetScanEnableCommand: HCICommand, Hashable {
    public static let opcode = HCIOpcode.leSetScanEnable

    public var enable: Bool
    public var filterDuplicates: Bool

    public init(enable: Bool, filterDuplicates: Bool = false) {
        self.enable = enable
        self.filterDuplicates = filterDuplicates
    }

    public var parameters: [UInt8] { [enable ? 1 : 0, filterDuplicates ? 1 : 0] }
}
