/// The timing asked for a new LE connection (Vol 4 Part E §7.8.12): connection interval in
/// units of 1.25 ms, peripheral latency in events, supervision timeout in units of 10 ms, and
/// the scan that looks for the device meanwhile (units of 0.625 ms).
public struct HCIConnectionParameters: Hashable, Sendable {
    public var scanInterval: UInt16
    public var scanWindow: UInt16
    public var intervalMin: UInt16
    public var intervalMax: UInt16
    public var latency: UInt16
    public var supervisionTimeout: UInt16

    /// 30–50 ms intervals, no latency, a 4 s supervision timeout: quick answers from a device
    /// that sends a few notifications per command, and a lost device noticed within seconds.
    public static let tuya = HCIConnectionParameters(
        scanInterval: 0x0060, scanWindow: 0x0060, intervalMin: 0x0018, intervalMax: 0x0028, latency: 0,
        supervisionTimeout: 0x0190)

    public init(
        scanInterval: UInt16, scanWindow: UInt16, intervalMin: UInt16, intervalMax: UInt16, latency: UInt16,
        supervisionTimeout: UInt16
    ) {
        self.scanInterval = scanInterval
        self.scanWindow = scanWindow
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
        self.latency = latency
        self.supervisionTimeout = supervisionTimeout
    }

    /// Connection interval min, max, latency, supervision timeout, then min and max CE length 0.
    var connectionFields: [UInt8] {
        var bytes: [UInt8] = []
        for value in [intervalMin, intervalMax, latency, supervisionTimeout, 0, 0] { bytes.appendLittleEndian(value) }
        return bytes
    }
}
