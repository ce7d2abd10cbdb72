import TuyaCore

/// Whether one MQTT device is reachable, as a pure state machine over a clock the caller
/// reads (`Duration` since an origin of its choosing).
///
/// - A healthy device is asked for its values (a protocol-31 query) once every
///   `queryInterval`: one query a minute by default.
/// - A query not answered within `answerTimeout` is missed: the next one goes out sooner,
///   backing off (`answerTimeout`, then twice that, … up to `queryInterval` between queries),
///   so a device that is gone is found out in seconds, not minutes.
/// - No good frame for `offlineAfter` since the first missed query means offline (30 s by
///   default), whatever the query interval.
/// - Frames that arrive intact but fail to decrypt (`WireError.keyMismatch`) mean
///   `auth_failed`, hint "local key mismatch", once `keyMismatchesForAuthFailure` of them
///   arrived with no good frame in between within `keyMismatchWindow`: a single frame anyone
///   can make (the CRC is not secret) is counted, not believed.
/// - A good frame means online again.
struct AvailabilityTracker: Sendable {
    struct Configuration: Hashable, Sendable {
        var queryInterval: Duration = .seconds(60)
        var answerTimeout: Duration = .seconds(5)
        var offlineAfter: Duration = .seconds(30)
        var keyMismatchesForAuthFailure = 3
        var keyMismatchWindow: Duration = .seconds(120)
    }

    enum Action: Hashable, Sendable {
        /// Publish a protocol-31 query for every DP.
        case sendQuery
        case changed(Availability, hint: String?)
    }

    static let keyMismatchHint = "local key mismatch"
    static let brokerLostHint = "broker connection lost"

    var configuration: Configuration
    private(set) var availability: Availability = .unknown
    private(set) var hint: String?
    /// Queries missed in a row since the last good frame.
    private(set) var missed = 0
    private var started = false
    private var lastQueryAt: Duration?
    private var awaitingAnswer = false
    private var nextQueryAt: Duration?
    /// When the first query that is still unanswered went out; nil once one is answered.
    private var unansweredSince: Duration?
    /// Undecryptable frames since the last good one, oldest first.
    private var mismatches: [Duration] = []
    /// How many mismatches are remembered (for tests: never more than the few that count).
    var rememberedMismatches: Int { mismatches.count }

    init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    var nextWake: Duration? {
        guard started else { return nil }
        var wakes: [Duration] = []
        if awaitingAnswer, let lastQueryAt { wakes.append(lastQueryAt + configuration.answerTimeout) }
        if let nextQueryAt { wakes.append(nextQueryAt) }
        if let unansweredSince, availability != .offline { wakes.append(unansweredSince + configuration.offlineAfter) }
        return wakes.min()
    }

    /// The broker is (again) connected: query at once.
    mutating func start(now: Duration) -> [Action] {
        started = true
        return query(now: now)
    }

    /// The broker went away: nothing can be heard, and no query can be sent until `start`.
    mutating func brokerLost() -> [Action] {
        started = false
        awaitingAnswer = false
        nextQueryAt = nil
        unansweredSince = nil
        missed = 0
        return change(to: .offline, hint: Self.brokerLostHint)
    }

    mutating func tick(now: Duration) -> [Action] {
        guard started else { return [] }
        var actions: [Action] = []
        if awaitingAnswer, let lastQueryAt, now >= lastQueryAt + configuration.answerTimeout {
            awaitingAnswer = false
            missed += 1
            nextQueryAt = lastQueryAt + retryDelay(afterMisses: missed)
        }
        if let unansweredSince, now >= unansweredSince + configuration.offlineAfter,
            availability != .offline, availability != .authFailed
        {
            actions += change(to: .offline, hint: "no answer for \(Self.words(configuration.offlineAfter))")
        }
        if let nextQueryAt, now >= nextQueryAt { actions += query(now: now) }
        return actions
    }

    /// A frame that decrypted and parsed: the device is there and the key is right.
    mutating func receivedGoodFrame(now: Duration) -> [Action] {
        missed = 0
        mismatches = []
        unansweredSince = nil
        if awaitingAnswer {
            awaitingAnswer = false
            nextQueryAt = (lastQueryAt ?? now) + configuration.queryInterval
        }
        return change(to: .online, hint: nil)
    }

    /// An intact frame that the local key cannot decrypt.
    mutating func receivedKeyMismatch(now: Duration) -> [Action] {
        // Something answers on the device's topic: it is not gone, whatever the key.
        unansweredSince = unansweredSince.map { max($0, now) }
        mismatches.append(now)
        mismatches.removeAll { $0 < now - configuration.keyMismatchWindow }
        // Only the latest few matter (they are in time order): anyone can send intact frames
        // that do not decrypt, as fast as the broker takes them.
        let excess = mismatches.count - configuration.keyMismatchesForAuthFailure
        if excess > 0 { mismatches.removeFirst(excess) }
        guard mismatches.count >= configuration.keyMismatchesForAuthFailure else { return [] }
        return change(to: .authFailed, hint: Self.keyMismatchHint)
    }

    /// From one query to the next after `misses` missed in a row: the answer timeout,
    /// doubling, never longer than the healthy interval.
    private func retryDelay(afterMisses misses: Int) -> Duration {
        var delay = configuration.answerTimeout
        for _ in 1..<max(1, misses) where delay < configuration.queryInterval { delay *= 2 }
        return min(delay, configuration.queryInterval)
    }

    private mutating func query(now: Duration) -> [Action] {
        lastQueryAt = now
        awaitingAnswer = true
        nextQueryAt = nil
        if unansweredSince == nil { unansweredSince = now }
        return [.sendQuery]
    }

    private mutating func change(to availability: Availability, hint: String?) -> [Action] {
        guard availability != self.availability || hint != self.hint else { return [] }
        self.availability = availability
        self.hint = hint
        return [.changed(availability, hint: hint)]
    }

    private static func words(_ duration: Duration) -> String {
        let seconds = duration.components.seconds
        return seconds >= 60 && seconds % 60 == 0 ? "\(seconds / 60) min" : "\(seconds) s"
    }
}
