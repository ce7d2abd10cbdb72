/// Whether a device frame is new, judged from the two things a Tuya MQTT 2.2 frame carries:
/// the body's `t` (unix seconds by the device's clock, inside the ciphertext) and the
/// header's sequence number (protocol/TUYA.md §3.2, §3.3). A pure value per device and per
/// connection of the daemon; times are unix seconds.
///
/// The rule, in order:
/// 1. `t` must lie within `window` of the device's expected time: the gateway's clock plus
///    the offset learned for this device (zero until learned), so a device whose clock is
///    off is judged around its own timeline, not ours.
/// 2. `t` may not go back more than `backwardSlack` behind the last accepted `t`: a replay
///    carries the time it was recorded at, older than what the device has said since.
/// 3. The sequence number must move forward (modulo 2³²). A device that restarted begins
///    again from `rand() & 0xffff`, so a sequence that went back is accepted only with a
///    `t` newer than the last accepted one (a restarted device's clock moved on; a replay's
///    did not).
/// 4. A frame that fails 1 or 2 is kept as a candidate. The next frame that agrees with it
///    (`t` minus the gateway's clock within `agreement`, `t` later, sequence forward) shows
///    a device whose clock is off, or that jumped (a restart without time sync): the offset
///    is learned again from it and both are judged from then on.
///
/// Limits: the 2.2 sequence is covered only by a CRC anyone can compute, so rule 3 stops
/// verbatim replays only; `t` is the real guard. An attacker holding two recent recordings
/// of a device that is silent can make them agree (rule 4). The link's last line is
/// `DeviceLinkCore`: a report older than the last command never confirms or becomes desired.
struct FrameFreshness: Sendable {
    struct Configuration: Hashable, Sendable {
        /// How far `t` may be from the expected time (default ±10 min).
        var window: Int64 = 600
        /// How far two frames' clock offsets may differ and still agree.
        var agreement: Int64 = 5
        /// How far `t` may go back behind the last accepted one (clock corrections).
        var backwardSlack: Int64 = 2
    }

    /// Why a frame was refused; the raw values are the `reason` label of the metrics.
    enum Rejection: String, CaseIterable, Hashable, Sendable {
        case timeOutsideWindow = "time_outside_window"
        case timeWentBack = "time_went_back"
        case sequenceWentBack = "sequence_went_back"
    }

    enum Verdict: Hashable, Sendable {
        /// New: `emittedAt` is the frame's `t` on the gateway's clock (the learned offset removed).
        case fresh(emittedAt: Int64)
        case rejected(Rejection)
    }

    private struct Seen: Hashable, Sendable {
        var offset: Int64
        var time: Int64
        var sequence: UInt32?
    }

    let configuration: Configuration
    /// The device's clock minus the gateway's, learned from accepted frames.
    private(set) var offset: Int64?
    private var last: Seen?
    private var candidate: Seen?

    init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Judges one frame heard at `now` (the gateway's unix seconds) and, when it is new,
    /// remembers it.
    mutating func check(time: Int64, sequence: UInt32?, now: Int64) -> Verdict {
        // `t` is any integer a frame carries. Outside 0...2⁴⁰ (about the year 36812) it is no
        // clock at all: refused, not kept as a candidate, so every sum and difference below
        // stays far inside Int64.
        guard (0...Self.latestTime).contains(time) else { return .rejected(.timeOutsideWindow) }
        let sample = Seen(offset: time - now, time: time, sequence: sequence)
        let verdict = judge(sample)
        guard case .rejected = verdict else {
            accept(sample)
            return .fresh(emittedAt: time &- (offset ?? 0))
        }
        if let candidate, agrees(sample, with: candidate) {
            // Two frames on one timeline: the device's clock is off or jumped; follow it.
            self.candidate = nil
            offset = sample.offset
            last = sample
            return .fresh(emittedAt: now)
        }
        candidate = sample
        return verdict
    }

    private func judge(_ sample: Seen) -> Verdict {
        let expected = sample.offset - (offset ?? 0)
        guard abs(expected) <= configuration.window else { return .rejected(.timeOutsideWindow) }
        guard let last else { return .fresh(emittedAt: 0) }
        if sample.time < last.time - configuration.backwardSlack { return .rejected(.timeWentBack) }
        if let sequence = sample.sequence, let lastSequence = last.sequence, !Self.follows(sequence, lastSequence),
            sample.time <= last.time
        {
            return .rejected(.sequenceWentBack)
        }
        return .fresh(emittedAt: 0)
    }

    /// Keeps the highest offset seen, letting it fall by at most a second a frame: frames
    /// arrive late, never early, so the highest is the closest to the device's real offset,
    /// and the slow fall follows a device clock that runs slow.
    private mutating func accept(_ sample: Seen) {
        offset = max(sample.offset, (offset ?? sample.offset) - 1)
        last = Seen(offset: sample.offset, time: max(sample.time, last?.time ?? sample.time), sequence: sample.sequence)
        candidate = nil
    }

    private func agrees(_ sample: Seen, with candidate: Seen) -> Bool {
        guard abs(sample.offset - candidate.offset) <= configuration.agreement, sample.time > candidate.time else {
            return false
        }
        guard let sequence = sample.sequence, let previous = candidate.sequence else { return true }
        return Self.follows(sequence, previous)
    }

    /// The largest `t` taken for a time: 2⁴⁰ seconds.
    static let latestTime: Int64 = 1 << 40

    /// Whether `sequence` comes after `previous` on a counter that wraps at 2³².
    static func follows(_ sequence: UInt32, _ previous: UInt32) -> Bool {
        let step = sequence &- previous
        return step != 0 && step < 0x8000_0000
    }
}
