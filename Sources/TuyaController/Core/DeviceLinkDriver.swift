import Foundation
import Timing
import TuyaCore
import TuyaWire

/// A thin actor around `DeviceLinkCore` for one transport (MQTT, LAN, BLE). The actor owns
/// the transport, the clock and the answers its callers wait for; everything the transports have
/// in common (sending a command and waiting for its confirmation, performing the core's
/// actions, the views the controller reads) is written once, in this protocol's extension.
protocol DeviceLinkDriver: Actor {
    var core: DeviceLinkCore { get set }
    /// The waiting callers, listeners, clock, stopped flag and timer this extension works with.
    var driver: LinkDriverState { get set }
    /// When the transport's own cores next have work (availability queries, session
    /// deadlines, an idle close); the core's own wake is added by `reschedule()`.
    var transportWake: Duration? { get }

    /// Puts one frame carrying these DPs on the wire (or hands it to the transport's writer).
    func transmit(_ values: DataPoints)
    /// A command was queued: connect when needed (`reschedule()` follows).
    func commandQueued()
    /// The transport's part of a timer tick (the core has been ticked already).
    func transportTick(now: Duration)
    /// Asks the device for all its values (its report refreshes the confirmed state).
    func refresh()
    /// Drops the link; waiting commands fail with `stopped`.
    func stop() async
    /// Runs `work` on the link: by entering the actor (the extension's default, returning once
    /// `work` has run), or by queueing it on the link's executor (`LANDeviceLink`; at once when
    /// the caller is already on it).
    nonisolated func post(_ work: @escaping @Sendable (isolated Self) -> Void) async
    /// Where a caller's task best runs to send to this link without waking another thread:
    /// the LAN link's event loop, the BLE link's current connection's reader thread; nil when
    /// no executor is better than another (MQTT, a BLE link not connected).
    nonisolated var taskExecutor: (any TaskExecutor)? { get }
    /// The device as persisted (key, desired and confirmed values), for a rekey that keeps them.
    func stored() -> StoredDevice?
}

extension DeviceLinkDriver {
    /// Reads from the core where it lies. A plain read of `core` through this protocol copies
    /// the whole struct, retaining and releasing every array and dictionary in it (5 % of a
    /// LAN command's CPU on the link's thread); an access through the requirement's setter
    /// does not. `body` only reads, and touches nothing else of the link.
    func inCore<T>(_ body: (inout DeviceLinkCore) -> T) -> T { body(&core) }
    /// The same for the driver's state.
    func inDriver<T>(_ body: (inout LinkDriverState) -> T) -> T { body(&driver) }

    var clock: OffsetClock { inDriver { $0.clock } }
    var isStopped: Bool { inDriver { $0.isStopped } }
    var device: TuyaDevice { inCore { $0.device } }
    var status: ConnectionStatus { inCore { $0.status } }
    var confirmedState: DeviceState { inCore { $0.confirmedState } }
    var pendingState: DeviceState { inCore { $0.pendingState } }
    /// Every DP the device has reported, merged.
    var reported: DataPoints { inCore { $0.reported } }
    /// What the user asked for, re-applied when the device comes back.
    var desired: DataPoints { inCore { $0.desired } }

    func rename(_ name: String) {
        core.rename(name)
    }

    /// Writes the DPs in one frame (after the frame gap, connecting first when the
    /// transport needs it) and returns the state the device confirms, or throws
    /// `confirmationTimeout` naming the DPs still pending.
    nonisolated func send(_ writes: DataPoints) async throws -> DeviceState {
        try await posting { link, answer in link.enqueue(writes, answer: answer) }.value
    }

    /// The controller's `send` in one visit to the link (no hop back and forth to read the
    /// reported values and the availability first): maps `command` against what the device
    /// reported, then sends it. With `failFastWhenOffline`, a device that stopped answering
    /// (not a broker outage) gets the writes as its desired state, and the caller hears at
    /// once that it is offline rather than after a confirmation timeout.
    ///
    /// The caller waits off the link's executor: the link settles the answer and the caller
    /// goes on from the pool, with no hop back through the link (`CommandAnswer`).
    nonisolated func send(
        _ command: DeviceCommand, mapper: DataPointMapper, failFastWhenOffline: Bool
    ) async throws -> DeviceState {
        try await submit(command, mapper: mapper, failFastWhenOffline: failFastWhenOffline).value
    }

    /// `send`'s first half: returns once the command is posted to the link (see `post`:
    /// run there in the order posted), with the answer still to wait for. Commands submitted
    /// one after another are queued, and coalesced, in that order.
    nonisolated func submit(
        _ command: DeviceCommand, mapper: DataPointMapper, failFastWhenOffline: Bool
    ) async -> CommandAnswer {
        await posting { link, answer in
            link.accept(command, mapper: mapper, failFastWhenOffline: failFastWhenOffline, answer: answer)
        }
    }

    /// Posts `work` with an answer for it to settle on the link, and returns the answer once
    /// `post` has.
    private nonisolated func posting(
        _ work: @escaping @Sendable (isolated Self, CommandAnswer) -> Void
    ) async -> CommandAnswer {
        let answer = CommandAnswer()
        await post { link in work(link, answer) }
        return answer
    }

    nonisolated var taskExecutor: (any TaskExecutor)? { nil }

    /// Runs `work` on the link. Default actors are entered by the caller's task (on its
    /// thread when the actor is free); `LANDeviceLink` hands the work to its event loop.
    nonisolated func post(_ work: @escaping @Sendable (isolated Self) -> Void) async {
        await work(self)
    }

    private func accept(
        _ command: DeviceCommand, mapper: DataPointMapper, failFastWhenOffline: Bool, answer: CommandAnswer
    ) {
        let writes: DataPoints
        do throws(MappingError) {
            writes = try mapper.writes(for: command, current: reported)
        } catch {
            return answer.settle(
                .failure(ControllerError.invalidCommand(device: device.id, reason: error.description)))
        }
        let status = status
        if failFastWhenOffline, status.availability == .offline, status.hint != AvailabilityTracker.brokerLostHint,
            !isStopped
        {
            let (_, actions) = core.send(writes, now: clock.now())
            perform(actions)
            commandQueued()
            reschedule()
            return answer.settle(
                .failure(ControllerError.offline(device: device.id, lastSeen: status.lastSeen, hint: status.hint)))
        }
        enqueue(writes, answer: answer)
    }

    /// Queues the writes; the core's `.complete` for their ticket settles `answer` (at once
    /// with `stopped` on a stopped link).
    private func enqueue(_ writes: DataPoints, answer: CommandAnswer) {
        guard !isStopped else { return answer.settle(.failure(ControllerError.stopped)) }
        let (ticket, actions) = core.send(writes, now: clock.now())
        driver.waiters[ticket] = answer
        perform(actions)
        commandQueued()
        reschedule()
    }

    /// Keeps the one timer task sleeping until the earliest wake the core or the transport asks for.
    func reschedule() {
        // Without an array of the two: this runs for every command and every report.
        let wake =
            switch (inCore { $0.nextWake }, transportWake) {
            case (let core?, let transport?): min(core, transport)
            case (let only?, nil), (nil, let only?): only
            case (nil, nil): nil as Duration?
            }
        driver.timer.arm(for: isStopped ? nil : wake, clock: clock) { [weak self] in await self?.tick() }
    }

    func tick() {
        driver.timer.fired()
        guard !isStopped else { return }
        let now = clock.now()
        perform(core.tick(now: now))
        transportTick(now: now)
        reschedule()
    }

    /// Carries out what the core decided, in order.
    func perform(_ actions: [DeviceLinkCore.Action]) {
        for action in actions {
            switch action {
            case .transmit(let values):
                transmit(values)
            case .complete(let ticket, let result):
                driver.waiters.removeValue(forKey: ticket)?.settle(result.mapError { $0 as any Error })
            case .announce(let event):
                inDriver { $0.listeners.hub }.publish(event)
            case .desiredChanged(let desired):
                inDriver { $0.listeners.onDesiredChange }(desired)
            }
        }
    }

    /// Fails every waiting caller with `stopped` (the link is stopping).
    func failWaiters() {
        perform(core.stop())
        for waiter in driver.waiters.values { waiter.settle(.failure(ControllerError.stopped)) }
        driver.waiters = [:]
    }
}
