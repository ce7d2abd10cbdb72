/// What both LE Set Scan Parameters commands carry; the legacy and the extended command differ
/// only in how they lay it out. Times in units of 0.625 ms.
public struct HCIScanSettings: Hashable, Sendable {
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
}

/// LE Set Scan Parameters or its extended counterpart: the settings, in the command's layout.
public protocol HCIScanParametersCommand: HCICommand, Hashable {
    var settings: HCIScanSettings { get }
    init(settings: HCIScanSettings)
}

extension HCIScanParametersCommand {
    public init(active: Bool = true, interval: UInt16 = 0x0010, window: UInt16 = 0x0010, ownAddressType: UInt8 = 0) {
        self.init(
            settings: HCIScanSettings(
                active: active, interval: interval, window: window, ownAddressType: ownAddressType))
    }
}
