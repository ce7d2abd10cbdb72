import TuyaCore

/// Whether one MQTT device is reachable, as a pure state machine over a clock the caller
/// reads (`Duration` since an origin of its choosing).
///
/// - A protocol-31 query goes out every `queryInterval`; `maxUnansweredQueries` queries
///   in a row without a decryptable answer, or no traffic at all for `silenceTimeout`,
///   mean offline.
/// - Frames that arrive intact but fail to decrypt (`WireError.keyMismatch`) mean
///   `auth_failed`, hint "local key mismatch": the device is there, the key is wrong.
/// - A good report means online again.
struct AvailabilityTracker: Sendable {
    struct Configuration: Hashable, Sendable {
        var queryInterval: Duration = .seconds(30)
        var maxUnansweredQueries: Int = 3
        /// Defaults to `queryInterval * (maxUnansweredQueries + 1)`.
        var silenceTimeout: Duration?

        var effectiveSilenceTimeout: Duration {
            silenceTimeout ?? queryInterval * (maxUnansweredQueries + 1)
        }
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
    private(set) var unanswered = 0
    private var nextQueryAt: Duration?
    private var lastTrafficAt: Duration?

    init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    var nextWake: Duration? {
        guard let nextQueryAt else { return nil }
        guard let lastTrafficAt, availability != .offline else { return nextQueryAt }
        return min(nextQueryAt, lastTrafficAt + configuration.effectiveSilenceTimeout)
    }

    /// The broker is (again) connected: query at once.
    mutating func start(now: Duration) -> [Action] {
        lastTrafficAt = lastTrafficAt ?? now
        return query(now: now)
    }

    /// The broker went away: nothing can be heard, and no query can be sent until `start`.
    mutating func brokerLost() -> [Action] {
        nextQueryAt = nil
        unanswered = 0
        lastTrafficAt = nil
        return change(to: .offline, hint: Self.brokerLostHint)
    }

    mutating func tick(now: Duration) -> [Action] {
        guard let nextQueryAt else { return [] }
        var actions: [Action] = []
        if availability != .offline, let lastTrafficAt,
            now >= lastTrafficAt + configuration.effectiveSilenceTimeout
        {
            actions += change(to: .offline, hint: "no traffic for \(configuration.effectiveSilenceTimeout)")
        }
        if now >= nextQueryAt {
            if unanswered >= configuration.maxUnansweredQueries, availability != .offline, availability != .authFailed {
                actions += change(to: .offline, hint: "no answer to \(unanswered) queries")
            }
            actions += query(now: now)
        }
        return actions
    }

    /// A frame that decrypted and parsed: the device is there and the key is right.
    mutating func receivedGoodFrame(now: Duration) -> [Action] {
        unanswered = 0
        lastTrafficAt = now
        return change(to: .online, hint: nil)
    }

    /// An intact frame that the local key cannot decrypt.
    mutating func receivedKeyMismatch(now: Duration) -> [Action] {
        lastTrafficAt = now
        return change(to: .authFailed, hint: Self.keyMismatchHint)
    }

    private mutating func query(now: Duration) -> [Action] {
        unanswered += 1
        nextQueryAt = now + configuration.queryInterval
        return [.sendQuery]
    }

    private mutating func change(to availability: Availability, hint: String?) -> [Action] {
        guard availability != self.availability || hint != self.hint else { return [] }
        self.availability = availability
        self.hint = hint
        return [.changed(availability, hint: hint)]
    }
}
