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
