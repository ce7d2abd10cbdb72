import Timing

/// The network loop's connection bookkeeping, pure: when to dial again, how long to wait
/// for a CONNACK, which closures count as failed attempts. Times are offsets on the loop's
/// clock, handed in; the random part of the backoff comes in as `unitRandom`. The loop
/// does the I/O and reports what happened; this says what to do next.
///
/// The first connection is tried once (its failure is the caller's to see); once a session
/// has come up, every loss is retried forever with `backoff`.
struct ReconnectState: Sendable {
    /// What the loop does while it has no socket.
    enum Idle: Equatable, Sendable {
        /// Dial again now.
        case dial
        /// Sleep (waking early on a request) for this long, then look again.
        case wait(Duration)
        /// Nothing is due: sleep until a request comes.
        case waitForRequest
    }

    /// What became of a connection that closed.
    struct Closure: Equatable, Sendable {
        /// It never got its CONNACK: a failed attempt, to be reported.
        var failedAttempt: Bool
        /// The wait before the next try, nil when none is scheduled.
        var retryAfter: Duration?
    }

    let backoff: Backoff
    let connectTimeout: Duration
    /// The longest a poll round waits, so requests and deadlines are looked at regularly.
    let pollLimit: Duration

    private(set) var retryAt: Duration?
    private(set) var connackDeadline: Duration?
    /// Failed attempts since the last session came up.
    private(set) var failures = 0
    /// Whether a session has come up since `connect()`: losses are then retried.
    private(set) var keepTrying = false
    /// Whether the current connection has had its CONNACK.
    private(set) var sessionUp = false
    private var seenSessions = 0

    init(backoff: Backoff, connectTimeout: Duration, pollLimit: Duration = .seconds(1)) {
        self.backoff = backoff
        self.connectTimeout = connectTimeout
        self.pollLimit = pollLimit
    }

    /// A first connection was asked for: start over, the caller dials at once.
    mutating func connectRequested() {
        failures = 0
        keepTrying = false
        retryAt = nil
    }

    /// "Reconnect now": a scheduled retry becomes due at once.
    mutating func reconnectRequested(at now: Duration) {
        if retryAt != nil { retryAt = now }
    }

    /// A dial was started: its CONNACK is due within `connectTimeout`.
    mutating func dialStarted(at now: Duration) {
        connackDeadline = now + connectTimeout
    }

    /// A dial failed at once (no route, refused); returns the wait before the next one, if any.
    mutating func dialFailed(at now: Duration, unitRandom: Double) -> Duration? {
        failures += 1
        return keepTrying ? scheduleRetry(at: now, unitRandom: unitRandom) : nil
    }

    /// How long the next poll round on an open socket may wait.
    func pollTimeout(at now: Duration) -> Duration {
        min(connackDeadline.map { $0 - now } ?? pollLimit, pollLimit)
    }

    /// After a poll round: `sessions` is how many CONNACKs the connection has seen in all.
    mutating func serviced(sessions: Int) {
        guard sessions != seenSessions else { return }
        seenSessions = sessions
        keepTrying = true
        sessionUp = true
        failures = 0
        connackDeadline = nil
    }

    /// The socket closed (by either side).
    mutating func closed(at now: Duration, unitRandom: Double) -> Closure {
        let failedAttempt = !sessionUp
        failures = sessionUp ? 0 : failures + 1
        sessionUp = false
        connackDeadline = nil
        return Closure(
            failedAttempt: failedAttempt,
            retryAfter: keepTrying ? scheduleRetry(at: now, unitRandom: unitRandom) : nil)
    }

    /// Whether the CONNACK is overdue at `now`; true once, then the deadline is gone (the
    /// caller shuts the socket down, and `closed` follows).
    mutating func connackOverdue(at now: Duration) -> Bool {
        guard let deadline = connackDeadline, now >= deadline else { return false }
        connackDeadline = nil
        return true
    }

    /// What to do with no socket open.
    mutating func idle(at now: Duration) -> Idle {
        guard let due = retryAt else { return .waitForRequest }
        guard now >= due else { return .wait(due - now) }
        retryAt = nil
        return .dial
    }

    private mutating func scheduleRetry(at now: Duration, unitRandom: Double) -> Duration {
        let delay = backoff.delay(retry: failures, unitRandom: unitRandom)
        retryAt = now + delay
        return delay
    }
}
