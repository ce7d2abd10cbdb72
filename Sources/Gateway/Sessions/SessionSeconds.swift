import Timing

/// A time on the bridge API: seconds to a tenth (`elapsed_seconds: 61.3`), always written
/// as a JSON number with a fraction.
struct SessionSeconds: Codable, Hashable, Sendable {
    var duration: Duration

    init(_ duration: Duration) {
        self.duration = duration
    }

    init(from decoder: any Decoder) throws {
        duration = .milliseconds(Int64((try decoder.singleValueContainer().decode(Double.self) * 1000).rounded()))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode((Double(duration.wholeMilliseconds) / 100).rounded() / 10)
    }
}
