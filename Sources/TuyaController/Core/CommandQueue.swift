import TuyaCore

/// The write path to one device, as a pure state machine: the device link feeds it
/// commands, reports and clock ticks, and performs the actions it returns.
///
/// - Rapid writes to the same DP coalesce (the latest value wins) and every DP waiting
///   to go out travels in one frame, because cheap Tuya firmware drops frames that
///   arrive back to back.
/// - Frames are at least `frameGap` apart (the profile's `frameGapMilliseconds`).
/// - A PUBACK is not delivery (INTEROP.md): a written value counts as done only when a
///   report from the device carries it. A ticket that is not confirmed by its deadline
///   times out and its DPs stay pending; they are not resent here (the link re-applies
///   desired state when the device answers again).
///
/// Time is a `Duration` since an origin the caller chooses, so tests drive it by hand.
struct CommandQueue: Sendable {
    struct Configuration: Hashable, Sendable {
        var frameGap: Duration = .milliseconds(300)
        var confirmationTimeout: Duration = .seconds(5)
        /// DPs no report ever carries (the profile's write-only ones: a counter reset, a
        /// one-shot trigger): sent, but neither awaited nor waited for by a ticket.
        var neverReported: Set<DataPointID> = []
    }

    /// One caller's request, completed when all its DPs are confirmed.
    struct Ticket: Hashable, Sendable, Comparable {
        let rawValue: UInt64
        static func < (lhs: Ticket, rhs: Ticket) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    enum Action: Hashable, Sendable {
        /// Publish one protocol-5 frame carrying these DPs.
        case send(DataPoints)
        /// Every DP of the ticket was confirmed by a report.
        case confirmed(Ticket)
        /// The deadline passed; these DPs are still unconfirmed.
        case timedOut(Ticket, pending: [DataPointID])
    }

    private struct TicketState: Sendable {
        var remaining: Set<DataPointID>
        var deadline: Duration
    }

    var configuration: Configuration
    /// Written but not yet sent, coalesced.
    private(set) var queued: DataPoints = [:]
    /// Sent and not yet seen in a report.
    private(set) var awaiting: DataPoints = [:]
    /// While paused (broker down) nothing is sent; deadlines still run.
    private(set) var isPaused = false
    private var lastFrameAt: Duration?
    private var tickets: [Ticket: TicketState] = [:]
    private var nextTicket: UInt64 = 1

    init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Whether any caller still waits for a confirmation.
    var hasTickets: Bool { !tickets.isEmpty }

    /// Every value not yet confirmed, newest first: what the device will hold once it catches up.
    var pending: DataPoints { awaiting.merging(queued) { _, newer in newer } }

    /// When `tick(now:)` next has work: a held frame may go out or a deadline passes.
    var nextWake: Duration? {
        var wake = tickets.values.map(\.deadline).min()
        if !queued.isEmpty, !isPaused, let last = lastFrameAt {
            let release = last + configuration.frameGap
            wake = min(wake ?? release, release)
        }
        return wake
    }

    /// Queues the writes of one command and sends them at once if the frame gap allows.
    mutating func enqueue(_ writes: DataPoints, now: Duration) -> (Ticket, [Action]) {
        let ticket = Ticket(rawValue: nextTicket)
        nextTicket += 1
        queued.merge(writes) { _, newer in newer }
        let remaining = Set(writes.keys).subtracting(configuration.neverReported)
        tickets[ticket] = TicketState(remaining: remaining, deadline: now + configuration.confirmationTimeout)
        var actions = flush(now: now)
        if remaining.isEmpty {
            tickets[ticket] = nil
            actions.append(.confirmed(ticket))
        }
        return (ticket, actions)
    }

    /// Queues writes nobody waits for (desired state re-applied after a reconnect).
    mutating func enqueueUntracked(_ writes: DataPoints, now: Duration) -> [Action] {
        queued.merge(writes) { _, newer in newer }
        return flush(now: now)
    }

    /// A report from the device: every awaited DP it carries with the written value is
    /// confirmed. A different value (an intermediate state, a button press) confirms nothing.
    mutating func receiveReport(_ reported: DataPoints, now: Duration) -> [Action] {
        var confirmedIDs: Set<DataPointID> = []
        for (id, value) in reported where awaiting[id] == value {
            awaiting[id] = nil
            if queued[id] == nil { confirmedIDs.insert(id) }
        }
        for (id, value) in reported where queued[id] == value && awaiting[id] == nil {
            // Already what we were about to write (e.g. set by hand): no frame needed.
            queued[id] = nil
            confirmedIDs.insert(id)
        }
        var actions: [Action] = []
        for ticket in tickets.keys.sorted() {
            guard var state = tickets[ticket] else { continue }
            state.remaining.subtract(confirmedIDs)
            if state.remaining.isEmpty {
                tickets[ticket] = nil
                actions.append(.confirmed(ticket))
            } else {
                tickets[ticket] = state
            }
        }
        return actions + flush(now: now)
    }

    /// Sends what the frame gap now allows and times out tickets past their deadline.
    mutating func tick(now: Duration) -> [Action] {
        var actions = flush(now: now)
        for ticket in tickets.keys.sorted() {
            guard let state = tickets[ticket], state.deadline <= now else { continue }
            tickets[ticket] = nil
            actions.append(.timedOut(ticket, pending: state.remaining.sorted()))
        }
        return actions
    }

    /// The broker is down: hold frames instead of handing them to a client that would
    /// queue them invisibly.
    mutating func pause() {
        isPaused = true
    }

    mutating func resume(now: Duration) -> [Action] {
        isPaused = false
        return flush(now: now)
    }

    /// Forgets values nobody wants written any more (their re-apply bound passed): they
    /// are neither sent nor awaited. Tickets run to their own deadlines.
    mutating func drop(_ ids: Set<DataPointID>) {
        queued = queued.filter { !ids.contains($0.key) }
        awaiting = awaiting.filter { !ids.contains($0.key) }
    }

    /// Drops every ticket (the link is stopping) and returns them so their callers can be told.
    mutating func cancelAll() -> [Ticket] {
        let all = tickets.keys.sorted()
        tickets = [:]
        return all
    }

    private mutating func flush(now: Duration) -> [Action] {
        guard !queued.isEmpty, !isPaused else { return [] }
        if let last = lastFrameAt, now < last + configuration.frameGap { return [] }
        let frame = queued
        queued = [:]
        let neverReported = configuration.neverReported
        let awaited = neverReported.isEmpty ? frame : frame.filter { !neverReported.contains($0.key) }
        awaiting.merge(awaited) { _, newer in newer }
        lastFrameAt = now
        return [.send(frame)]
    }
}
