/// LE Set Extended Scan Enable (Vol 4 Part E §7.8.65): Enable (1) · Filter_Duplicates (1) ·
/// Duration (2) · Period (2). Duration and period 0: scan until told to stop.
public struct HCILESetExtendedScanEnableCommand: HCICommand, Hashable {
    public static let opcode = HCIOpcode.leSetExtendedScanEnable

    public var enable: Bool
    public var filterDuplicates: Bool

    public init(enable: Bool, filterDuplicates: Bool = false) {
        self.enable = enable
        self.filterDuplicates = filterDuplicates
    }

    public var parameters: [UInt8] { [enable ? 1 : 0, filterDuplicates ? 1 : 0, 0, 0, 0, 0] }
}
