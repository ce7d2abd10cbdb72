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

/// Faults a test or a demo asks a device to show, one switch each, all off by default.
public struct Misbehaviour: Sendable, Hashable {
    /// Share of incoming commands and queries (0...1) the device silently drops, drawn
    /// from the device's seeded generator so a run repeats.
    public var dropShare: Double
    /// Past this rate the device stops answering for a while, like firmware whose
    /// queue overflows under a burst.
    public var floodLimit: FloodLimit?
    /// When set, reports are encrypted with this 16-character key instead of the local
    /// key: what a gateway sees when it was given the wrong key for a device.
    public var wrongKey: String?

    public init(dropShare: Double = 0, floodLimit: FloodLimit? = nil, wrongKey: String? = nil) {
        self.dropShare = dropShare
        self.floodLimit = floodLimit
        self.wrongKey = wrongKey
    }
}

/// More than `frames` incoming frames within `window` make the device deaf for `silence`.
public struct FloodLimit: Sendable, Hashable {
    public var frames: Int
    public var window: Duration
    public var silence: Duration

    public init(frames: Int, window: Duration, silence: Duration) {
        self.frames = frames
        self.window = window
        self.silence = silence
    }
}
