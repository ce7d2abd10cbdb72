/// How a simulated device behaves when it is working properly: how long it takes to
/// answer and how fast a diffuser's tank runs dry.
public struct DeviceBehaviour: Sendable, Hashable {
    /// Delay between receiving a command or query and publishing the report. Real
    /// devices answer in tens of milliseconds; 0 answers at once.
    public var reportDelay: Duration
    /// How long a full tank lasts while misting. When it runs out the device raises the
    /// profile's `water_shortage` fault bit and stops misting, as real diffusers do.
    public var tankDuration: Duration

    public init(reportDelay: Duration = .milliseconds(20), tankDuration: Duration = .seconds(6 * 3600)) {
        self.reportDelay = reportDelay
        self.tankDuration = tankDuration
    }
}
