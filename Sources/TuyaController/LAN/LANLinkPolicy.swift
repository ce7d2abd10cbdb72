import Timing
import TuyaCore

/// When a LAN device link connects, keeps its connection alive, reads the device's full
/// status, gives up on a silent connection and reconnects, and what the user sees as the
/// device's availability: a pure state machine over durations since the link started,
/// tested with a manual clock. The link performs its actions on one TCP connection.
///
/// - One connection at a time, kept open forever; after it drops or fails, reconnect with
///   a capped, jittered backoff (a new connection means a new session key).
/// - While connected: a heartbeat when nothing was sent for `heartbeatInterval`, a full
///   status read every `statusInterval`; a request unanswered for `answerTimeout` means
///   the connection is dead (closed, then reconnected).
/// - Availability: `online` once the device answered on a connection; `busy` when it
///   refuses connections or closes them before sending a byte (another client holds it); `authFailed` after
///   `keyMismatchesBeforeAuthFailed` key mismatches in a row with nothing good between
///   (one frame anyone can forge is counted, not believed); `offline` when connecting fails
///   otherwise or a connection dies (closed mid-frame, with how far it got, or closed right
///   after a 3.4/3.5 handshake the device answered: that session was ours, so not busy).
///   A connection that drops is not news until the reconnect fails, so a device that
///   closes idle connections does not flap. For a minute after the gateway dropped a
///   connection itself, a refusal is `offline`, not `busy`: the device may still hold it.
struct LANLinkPolicy: Sendable {
    struct Configuration: Hashable, Sendable {
        var heartbeatInterval: Duration = .seconds(10)
        var statusInterval: Duration = .seconds(60)
        var answerTimeout: Duration = .seconds(5)
        var backoff = Backoff.deviceLink
        var keyMismatchesBeforeAuthFailed = 3
        /// Connection failures in a row after which the stored address and protocol version
        /// are checked against the device's latest broadcast, again at each failure after
        /// (a minute apart at most once the backoff is at its cap): a device updated to
        /// another version, or given another address, may broadcast it only later.
        var failuresBeforeReprobe = 5
        /// How long after the gateway dropped a connection itself (no answer, a bad frame) a
        /// refusal is taken for the device still holding that connection rather than another
        /// client: a device that missed the close (a Wi-Fi blip) lets it go when its own idle
        /// timeout ends, about 30 s on Tuya firmware.
        var ownConnectionGrace: Duration = .seconds(60)
    }

    enum Phase: Hashable, Sendable {
        case idle
        /// Waiting to reconnect at this time.
        case waiting(until: Duration)
        case connecting
        /// Connected; the 3.4/3.5 handshake (if any) is under way.
        case handshaking(since: Duration)
        case established
    }

    /// Why a connection ended or could not be made.
    enum Failure: Hashable, Sendable {
        case refused
        case unreachable(String)
        case keyMismatch(String)
        case protocolError(String)
        /// The device closed the connection with no frame half-sent (before any byte, it
        /// means another client holds it).
        case closedByDevice
        /// The device closed the connection with no frame half-sent, after its session-key
        /// answer verified under the local key (3.4/3.5) and before any other message: it
        /// gave us the session, so it is not held by another client.
        case closedAfterHandshake
        /// The device closed the connection `received` bytes into a frame of `expected`
        /// (nil: its header was not in yet).
        case closedMidFrame(received: Int, expected: Int?)
        case silent

        /// Whether the gateway closes the connection for this failure (the device did not).
        var isClosedByGateway: Bool {
            switch self {
            case .keyMismatch, .protocolError, .silent: true
            case .refused, .unreachable, .closedByDevice, .closedAfterHandshake, .closedMidFrame: false
            }
        }
    }

    enum Action: Hashable, Sendable {
        case connect
        /// Write the 3.4/3.5 handshake start (or nothing) now that TCP is up.
        case startSession
        case sendHeartbeat
        case sendStatusQuery
        case close
        case availability(Availability, hint: String?)
        /// Enough failures in a row that the stored version may be wrong: probe it again.
        case reprobeVersion
    }

    static let busyHint = "the device refuses connections: close the Tuya/Smart Life app or the other integration"
    static let keyMismatchHint = "local key mismatch"
    static let closedAfterHandshakeHint = "the device closed the connection right after the session-key handshake"
    static let heldOwnConnectionHint =
        "the device still holds the connection the gateway dropped; it lets it go within a minute"

    static func midFrameHint(received: Int, expected: Int?) -> String {
        let of = expected.map { "\(received) of \($0) bytes" } ?? "\(received) bytes, before the frame's length"
        return "the device closed the connection mid-frame (\(of))"
    }

    let configuration: Configuration
    private(set) var phase: Phase = .idle
    private(set) var availability: Availability = .unknown
    private var failuresInARow = 0
    /// Whether the device answered on the current connection.
    private var answeredThisConnection = false
    private var keyMismatchesInARow = 0
    private var lastSentAt: Duration = .zero
    private var nextStatusAt: Duration?
    /// When the oldest request still unanswered was sent.
    private var awaitingAnswerSince: Duration?
    /// When the gateway last closed a connection the device had accepted, for its own reasons,
    /// with no answer since: until `ownConnectionGrace` after it, a refusal is not "busy".
    private var droppedOwnConnectionAt: Duration?

    init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    var isEstablished: Bool { phase == .established }

    /// When `tick` next has work.
    var nextWake: Duration? {
        switch phase {
        case .idle, .connecting: return nil
        case .waiting(let until): return until
        case .handshaking(let since): return since + configuration.answerTimeout
        case .established:
            let heartbeat = lastSentAt + configuration.heartbeatInterval
            let answer = awaitingAnswerSince.map { $0 + configuration.answerTimeout }
            return [heartbeat, nextStatusAt, answer].compactMap { $0 }.min()
        }
    }

    mutating func start(now: Duration) -> [Action] {
        guard phase == .idle else { return [] }
        phase = .connecting
        return [.connect]
    }

    /// TCP is up: begin the session (the handshake for 3.4/3.5).
    mutating func connected(now: Duration) -> [Action] {
        phase = .handshaking(since: now)
        answeredThisConnection = false
        lastSentAt = now
        return [.startSession]
    }

    /// The session is established (at once for 3.1–3.3): read the device's status.
    mutating func established(now: Duration) -> [Action] {
        phase = .established
        nextStatusAt = now + configuration.statusInterval
        return sent(now: now) + [.sendStatusQuery]
    }

    /// A frame went out on the established connection (a command, a query).
    mutating func sent(now: Duration) -> [Action] {
        lastSentAt = now
        if awaitingAnswerSince == nil { awaitingAnswerSince = now }
        return []
    }

    /// A message that decrypted arrived: the connection is alive and the key is right.
    mutating func received(now: Duration) -> [Action] {
        awaitingAnswerSince = nil
        answeredThisConnection = true
        failuresInARow = 0
        keyMismatchesInARow = 0
        droppedOwnConnectionAt = nil
        return change(to: .online, hint: nil)
    }

    /// The connection could not be made, or ended, for `failure`. `unitRandom` (0..<1) picks
    /// how much of the backoff's jitter comes off the wait: the link draws it, so the devices
    /// of a house whose router restarted do not all reconnect in step.
    mutating func failed(_ failure: Failure, now: Duration, unitRandom: Double = 0) -> [Action] {
        let wasConnected: Bool
        switch phase {
        case .handshaking, .established: wasConnected = true
        default: wasConnected = false
        }
        var actions: [Action] = wasConnected ? [.close] : []
        // The device may not see this close (the path to it broke) and refuse the reconnect.
        if wasConnected, failure.isClosedByGateway { droppedOwnConnectionAt = now }
        let holdsOurs = droppedOwnConnectionAt.map { now < $0 + configuration.ownConnectionGrace } ?? false
        failuresInARow += 1
        awaitingAnswerSince = nil
        defer { answeredThisConnection = false }
        nextStatusAt = nil
        switch failure {
        case .refused where holdsOurs, .closedByDevice where wasConnected && !answeredThisConnection && holdsOurs:
            actions += change(to: .offline, hint: Self.heldOwnConnectionHint)
        case .refused:
            actions += change(to: .busy, hint: Self.busyHint)
        case .keyMismatch(let detail):
            keyMismatchesInARow += 1
            if keyMismatchesInARow >= configuration.keyMismatchesBeforeAuthFailed {
                actions += change(to: .authFailed, hint: "\(Self.keyMismatchHint): \(detail)")
            }
        case .closedByDevice where answeredThisConnection, .closedAfterHandshake where answeredThisConnection:
            // A drop after a working exchange is not news: the reconnect that follows decides.
            break
        case .closedByDevice where wasConnected:
            // Accepted and closed before answering: the firmware's way of saying another
            // client holds it.
            actions += change(to: .busy, hint: Self.busyHint)
        case .closedAfterHandshake:
            // The device answered the handshake with a valid HMAC, so the session was ours:
            // whatever made it close, it is not another client holding it.
            actions += change(to: .offline, hint: Self.closedAfterHandshakeHint)
        case .unreachable(let reason):
            actions += change(to: .offline, hint: reason)
        case .protocolError(let reason):
            actions += change(to: .offline, hint: reason)
        case .closedByDevice:
            actions += change(to: .offline, hint: "the device closed the connection")
        case .closedMidFrame(let received, let expected):
            // Not busy: a device that holds another client refuses before sending anything.
            actions += change(to: .offline, hint: Self.midFrameHint(received: received, expected: expected))
        case .silent:
            actions += change(to: .offline, hint: "no answer for \(configuration.answerTimeout.components.seconds) s")
        }
        if failuresInARow >= configuration.failuresBeforeReprobe { actions.append(.reprobeVersion) }
        // The first reconnect after a working connection goes at once; then the backoff.
        let delay =
            answeredThisConnection && failuresInARow == 1
            ? .zero : configuration.backoff.delay(retry: failuresInARow - 1, unitRandom: unitRandom)
        phase = .waiting(until: now + delay)
        return actions
    }

    /// Connects again now rather than when the backoff says (the device was heard at a new
    /// address): a wait ends, and an attempt still under way is abandoned by the link.
    mutating func retryNow(now: Duration) -> [Action] {
        switch phase {
        case .idle, .established:
            return []
        case .waiting, .connecting, .handshaking:
            phase = .connecting
            return [.connect]
        }
    }

    /// The link is stopping: nothing more to do.
    mutating func stop() -> [Action] {
        let wasOpen: Bool
        switch phase {
        case .handshaking, .established, .connecting: wasOpen = true
        default: wasOpen = false
        }
        phase = .idle
        return wasOpen ? [.close] : []
    }

    mutating func tick(now: Duration) -> [Action] {
        switch phase {
        case .idle, .connecting:
            return []
        case .waiting(let until):
            guard now >= until else { return [] }
            phase = .connecting
            return [.connect]
        case .handshaking(let since):
            guard now >= since + configuration.answerTimeout else { return [] }
            return failed(.silent, now: now)
        case .established:
            if let since = awaitingAnswerSince, now >= since + configuration.answerTimeout {
                return failed(.silent, now: now)
            }
            var actions: [Action] = []
            if let nextStatusAt, now >= nextStatusAt {
                self.nextStatusAt = now + configuration.statusInterval
                actions += sent(now: now) + [.sendStatusQuery]
            } else if now >= lastSentAt + configuration.heartbeatInterval {
                actions += sent(now: now) + [.sendHeartbeat]
            }
            return actions
        }
    }

    private mutating func change(to availability: Availability, hint: String?) -> [Action] {
        guard !(availability == .online && self.availability == .online) else { return [] }
        self.availability = availability
        return [.availability(availability, hint: hint)]
    }
}
