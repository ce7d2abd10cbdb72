import Foundation
import TuyaCore

/// Everything a device link does that does not depend on its radio, as one pure state
/// machine shared by the MQTT, LAN and BLE links (shaped like swift-nio's protocol state
/// machines): the link feeds it commands, decoded reports, link changes and clock ticks,
/// and performs the actions it returns. The transport (frames, sockets, sessions) stays in
/// the link.
///
/// It owns:
/// - the write path (`CommandQueue`: coalescing, one frame per batch, the profile's frame
///   gap, confirmation by report, deadlines);
/// - the values: `reported` (every DP the device reported, merged), `desired` (what the
///   user asked for, re-applied after a reconnect) and what is still pending;
/// - reconciliation: after the link is (re)established, the first report decides which
///   desired DPs to write again; while connected, changes made at the device become desired;
/// - the availability the rest of the gateway sees, and the events worth announcing.
///
/// Time is a `Duration` since an origin the link chooses (an `OffsetClock`).
struct DeviceLinkCore: Sendable {
    enum Action: Sendable {
        /// Hand the transport one frame carrying these DPs.
        case transmit(DataPoints)
        /// Finish a caller's `send`: the confirmed state, or why it failed.
        case complete(CommandQueue.Ticket, Result<DeviceState, ControllerError>)
        /// Tell the controller's listeners.
        case announce(ControllerEvent)
        /// The desired values changed: persist them.
        case desiredChanged(DataPoints)
    }

    private(set) var device: TuyaDevice
    let mapper: DataPointMapper
    private(set) var queue: CommandQueue
    /// Every DP the device has reported (or that was saved before a restart), merged.
    private(set) var reported: DataPoints
    /// What the user asked for, re-applied after every reconnect.
    private(set) var desired: DataPoints
    private(set) var availability: Availability = .unknown
    private(set) var hint: String?
    private(set) var lastSeen: Date?

    /// DPs reported since the link was last established: what reconciliation compares with.
    private var reportedSinceLink: DataPoints = [:]
    /// Values written since the link was last established: reconciliation does not write
    /// them again (their own report confirms them).
    private var sentSinceLink: DataPoints = [:]
    private var needsReconcile = false
    private var announcer: StateAnnouncer
    /// When the last frame went to the device, or when the link began: a report emitted
    /// before it says nothing about what the device holds now.
    private var lastWriteAt: Duration
    /// Reports accepted since the last write (or the link's start). The first one answers
    /// the write; any later one the transport passed as fresh (MQTT: its sequence moved on)
    /// comes after it, whatever its whole-second `t` says.
    private var reportsSinceWrite = 0
    /// Reports dropped because they were emitted before the last write (replays, or
    /// frames overtaken by a command).
    private(set) var staleReports = 0
    /// How long a desired value the device has not confirmed is still re-applied
    /// (`devices.reapply_within`); nil for ever.
    let reapplyWithin: Duration?
    /// When each desired value not yet confirmed by a report was asked for.
    private(set) var unconfirmedSince: [DataPointID: Duration] = [:]
    /// How far a report may seem to precede the last write and still count: device times
    /// are whole seconds on a clock whose offset is learned to a second or two.
    static let emissionSlack: Duration = .seconds(5)

    /// - Parameters:
    ///   - desired: the desired values saved before a restart.
    ///   - confirmed: the reported values saved before a restart: the state is known before
    ///     the device answers, and a fault still raised is not announced again.
    ///   - startedAt: when the link began. A report emitted before it is older than any
    ///     command sent before a restart, so it never becomes desired state; a saved desired
    ///     value the device had not confirmed is re-applied only within `reapplyWithin` of it.
    init(
        device: TuyaDevice, profile: DeviceProfile, confirmationTimeout: Duration, desired: DataPoints,
        confirmed: DataPoints, startedAt: Duration = .zero, reapplyWithin: Duration? = nil
    ) {
        lastWriteAt = startedAt
        // Never shorter than a command's own deadline, so a value waiting for its frame is not dropped.
        self.reapplyWithin = reapplyWithin.map { max($0, confirmationTimeout) }
        for (id, value) in desired where confirmed[id] != value { unconfirmedSince[id] = startedAt }
        self.device = device
        mapper = DataPointMapper(profile: profile)
        queue = CommandQueue(
            configuration: .init(
                frameGap: .milliseconds(max(0, profile.frameGapMilliseconds)),
                confirmationTimeout: confirmationTimeout,
                neverReported: Set(profile.dataPoints.filter { $0.access == .writeOnly }.map(\.id))))
        // Nothing goes out before the link says it can carry frames.
        queue.pause()
        self.desired = desired
        reported = confirmed
        announcer = StateAnnouncer(device: device.id, saved: confirmed.isEmpty ? nil : mapper.state(from: confirmed))
    }

    // MARK: - Views

    var status: ConnectionStatus { ConnectionStatus(availability: availability, lastSeen: lastSeen, hint: hint) }
    var confirmedState: DeviceState { mapper.state(from: reported) }
    var pendingState: DeviceState { mapper.state(from: reported.merging(queue.pending) { _, newer in newer }) }
    /// When `tick(now:)` next has work: the queue's wake, or a desired value's re-apply bound.
    var nextWake: Duration? {
        let expiry = reapplyWithin.flatMap { bound in unconfirmedSince.values.min().map { $0 + bound } }
        return [queue.nextWake, expiry].compactMap { $0 }.min()
    }
    /// Commands or values still waiting to go out or to be confirmed.
    var hasPendingWrites: Bool { !queue.queued.isEmpty || queue.hasTickets }

    mutating func rename(_ name: String) {
        device.name = name
    }

    // MARK: - Commands

    /// Records the writes as desired and queues them; the returned ticket completes when the
    /// device confirms every DP, or fails at the confirmation deadline.
    /// Write-only DPs go out in the frame but are neither desired (a reset is not re-applied
    /// after a reconnect) nor waited for (no report carries them).
    mutating func send(_ writes: DataPoints, now: Duration) -> (CommandQueue.Ticket, [Action]) {
        // Every command takes this path: no copy for a profile without write-only DPs.
        let neverReported = queue.configuration.neverReported
        let tracked = neverReported.isEmpty ? writes : writes.filter { !neverReported.contains($0.key) }
        desired.merge(tracked) { _, newer in newer }
        for id in tracked.keys { unconfirmedSince[id] = now }
        var actions: [Action] = tracked.isEmpty ? [] : [.desiredChanged(desired)]
        let (ticket, queued) = queue.enqueue(writes, now: now)
        actions += translate(queued, now: now)
        return (ticket, actions)
    }

    // MARK: - The link

    /// Frames can flow (broker session up, TCP connected, BLE session ready): release what
    /// waited.
    mutating func resume(now: Duration) -> [Action] {
        translate(queue.resume(now: now), now: now)
    }

    /// Frames cannot flow: hold them instead of handing them to a transport that would
    /// queue them invisibly. Deadlines still run.
    mutating func pause() {
        queue.pause()
    }

    /// A new link session began (the device came online, a connection was made): the next
    /// report decides which desired values to write again.
    mutating func linkEstablished() {
        reportedSinceLink = [:]
        sentSinceLink = [:]
        needsReconcile = true
    }

    /// The device is (or is not) reachable; announced only when it changed. Coming online
    /// starts a new link session for reconciliation.
    mutating func setAvailability(_ availability: Availability, hint: String?) -> [Action] {
        guard availability != self.availability || hint != self.hint else { return [] }
        let wasOnline = self.availability == .online
        self.availability = availability
        self.hint = hint
        if availability == .online, !wasOnline {
            linkEstablished()
            announcer.forgetState()
        }
        return [.announce(.availabilityChanged(device.id, status))]
    }

    /// Traffic from the device was heard at `time` (shown as `lastSeen`).
    mutating func heard(at time: Date) {
        lastSeen = time
    }

    // MARK: - Reports

    /// Values the device reported: confirms what they carry, reconciles after a new link
    /// session, adopts changes made at the device, and announces a changed state.
    ///
    /// `emittedAt` is when the device sent them, on the link's clock, when the frame says
    /// (MQTT's `t`); nil means now. A report emitted before the last write is dropped: it
    /// cannot confirm that write. And a report becomes desired state only when it is
    /// newer than the last write (or than the link's start, after a restart): its time is
    /// clearly later, or it follows the report that answered the write (a diffuser whose
    /// tank ran dry a moment after it was switched on). A replayed report would otherwise
    /// switch a light back on.
    mutating func receive(report values: DataPoints, emittedAt: Duration? = nil, now: Duration) -> [Action] {
        if let emittedAt, emittedAt < lastWriteAt - Self.emissionSlack {
            staleReports += 1
            return []
        }
        // A report after the one that answered the last write is newer than that write.
        let followsAnswer = reportsSinceWrite > 0
        reportsSinceWrite += 1
        reported.merge(values) { _, newer in newer }
        reportedSinceLink.merge(values) { _, newer in newer }
        let pendingBefore = queue.pending
        // Mapped once: the tickets this report confirms and the announcement read the same values.
        let state = confirmedState
        var actions = translate(queue.receiveReport(values, now: now), now: now, confirmed: state)
        if needsReconcile {
            needsReconcile = false
            let plan = Reconciliation.plan(reported: reportedSinceLink, desired: desired)
                .filter { id, value in sentSinceLink[id] != value }
            if !plan.isEmpty {
                actions += translate(queue.enqueueUntracked(plan, now: now), now: now, confirmed: state)
            }
        } else if followsAnswer || isAfterLastWrite(emittedAt),
            Reconciliation.adopt(values, into: &desired, pending: pendingBefore)
        {
            actions.append(.desiredChanged(desired))
        }
        for id in unconfirmedSince.keys where reported[id] == desired[id] { unconfirmedSince[id] = nil }
        actions += announcer.events(for: state).map { .announce($0) }
        return actions
    }

    /// Whether a report emitted at `emittedAt` is clearly newer than the last write, so its
    /// values may become desired. Without a time (LAN, BLE: their sessions are fresh by
    /// construction) it is.
    private func isAfterLastWrite(_ emittedAt: Duration?) -> Bool {
        guard let emittedAt else { return true }
        return emittedAt > lastWriteAt + Self.emissionSlack
    }

    /// Announces the current availability and state again from scratch: for a link that was
    /// built under a private hub (pairing) and now joins the registry.
    mutating func reannounce() -> [Action] {
        announcer = StateAnnouncer(device: device.id, saved: nil)
        return [.announce(.availabilityChanged(device.id, status))]
            + announcer.events(for: confirmedState).map { .announce($0) }
    }

    // MARK: - Time and stopping

    mutating func tick(now: Duration) -> [Action] {
        translate(queue.tick(now: now), now: now) + expireDesired(now: now)
    }

    /// Drops desired values the device has not confirmed within `reapplyWithin` of being
    /// asked for: their command already failed, and a light must not switch on hours later
    /// when its device returns (issue 14).
    private mutating func expireDesired(now: Duration) -> [Action] {
        guard let bound = reapplyWithin else { return [] }
        let expired = Set(unconfirmedSince.filter { $0.value + bound <= now }.keys)
        guard !expired.isEmpty else { return [] }
        for id in expired {
            unconfirmedSince[id] = nil
            desired[id] = nil
        }
        queue.drop(expired)
        return [.desiredChanged(desired), .announce(.desiredExpired(device.id, expired.sorted()))]
    }

    /// The link is stopping: every waiting caller fails with `stopped`.
    mutating func stop() -> [Action] {
        queue.cancelAll().map { .complete($0, .failure(.stopped)) }
    }

    /// `confirmed` is `confirmedState` when the caller has it already.
    private mutating func translate(
        _ actions: [CommandQueue.Action], now: Duration, confirmed: DeviceState? = nil
    ) -> [Action] {
        actions.map { action in
            switch action {
            case .send(let values):
                sentSinceLink.merge(values) { _, newer in newer }
                lastWriteAt = max(lastWriteAt, now)
                reportsSinceWrite = 0
                return .transmit(values)
            case .confirmed(let ticket):
                return .complete(ticket, .success(confirmed ?? confirmedState))
            case .timedOut(let ticket, let pending):
                return .complete(ticket, .failure(.confirmationTimeout(device: device.id, pending: pending)))
            }
        }
    }
}
