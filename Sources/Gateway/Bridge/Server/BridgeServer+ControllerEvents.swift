import Storage
import Timing
import Logging
import TuyaController
import TuyaCore

extension BridgeServer {
    /// What the controller reports: values and availability published (in the order
    /// `RetainedPublishState` allows), faults, pairings and candidates announced.
    func handle(_ event: ControllerEvent, thenBufferedFrom events: Mailbox<ControllerEvent>) async {
        await handle(event)
        while let next = events.nextIfBuffered() { await handle(next) }
    }

    func handle(_ event: ControllerEvent) async {
        switch event {
        case .stateChanged(let id, let state):
            // Saved before it is published (what anyone saw confirmed survives a crash), in a
            // group commit; the next events are handled meanwhile and published in order.
            savedStates.continuation.yield(SavedState(id: id, state: state, commit: queueConfirmed(id)))
        case .availabilityChanged(let id, let status):
            guard let device = await controller.device(id) else { return }
            if deviceChanged(id) { enqueueAvailability(device, status) }
            await availabilityChanged(device, status)
        case .faultRaised(let id, let faults), .faultCleared(let id, let faults):
            let raised = if case .faultRaised = event { true } else { false }
            let name = await controller.device(id)?.name ?? id.rawValue
            await emit(
                raised ? "fault_raised" : "fault_cleared", device: id,
                BridgeJSON.object(FaultsPayload(id: id.rawValue, friendlyName: name, faults: faults)))
        case .devicePaired, .deviceRemoved:
            if case .deviceRemoved(let id) = event { retained.forget(id) }
            // Not waited for here: values and availability keep flowing meanwhile.
            Task { [weak self] in await self?.publishDevicesCoalesced() }
        case .candidateFound(let candidate):
            await emit("device_found", device: candidate.id, candidate.eventData)
        case .desiredExpired(let id, let dataPoints):
            let name = await controller.device(id)?.name ?? id.rawValue
            logger.notice(
                "\(name) (\(id)) did not confirm DPs \(dataPoints.map(\.rawValue)) within devices.reapply_within; they will not be applied when it returns"
            )
        }
    }

    /// Logs the change (coming online is routine: 1,000 devices at every start) and
    /// announces a device whose frames do not decrypt.
    private func availabilityChanged(_ device: TuyaDevice, _ status: ConnectionStatus) async {
        let line: Logger.Message =
            "\(device.name) (\(device.id)) is \(status.availability.rawValue)\(status.hint.map { ": \($0)" } ?? "")"
        if status.availability == .online { logger.debug(line) } else { logger.notice(line) }
        guard status.availability == .authFailed else { return }
        await emit(
            "auth_failed", device: device.id,
            BridgeJSON.object(
                AuthFailedPayload(
                    id: device.id.rawValue, friendlyName: device.name,
                    message: "frames from \(device.name) do not decrypt with its local key; "
                        + "rekey it with `youll-devices rekey \(device.name)`")))
    }

    /// Records the device's reported values as its confirmed state, in the next group
    /// commit, and returns once that commit is done. A failed write is logged, counted, and
    /// keeps `health_check` degraded (with the reason) until a write succeeds again; the
    /// error is returned for an answer that promised the save.
    @discardableResult
    func persistConfirmed(_ id: DeviceID) async -> (any Error)? {
        noteSaved(id, await database.waitForCommit(queueConfirmed(id)))
    }

    /// Queues the device's confirmed state for the next group commit, read from the
    /// controller when that commit is written (so at least as new as now).
    private func queueConfirmed(_ id: DeviceID) -> Int {
        database.queueConfirmed(for: id) { [controller] in await controller.reportedDataPoints(of: id) }
    }

    private func noteSaved(_ id: DeviceID, _ failure: StorageError?) -> (any Error)? {
        guard let failure else {
            databaseProblem = nil
            return nil
        }
        logger.error("could not save the confirmed state of \(id): \(failure)")
        databaseProblem = "could not save a device's confirmed state: \(failure)"
        metrics.databaseWritesFailed.increment()
        return failure
    }

    /// Publishes each reported state once the commit holding it is done, in the order
    /// the controller reported them.
    func publishSavedStates() -> Task<Void, Never> {
        let stream = savedStates.mailbox
        let database = database
        return Task { [weak self] in
            for await saved in stream {
                let failure = await database.waitForCommit(saved.commit)
                await self?.published(saved, failure)
            }
        }
    }

    private func published(_ saved: SavedState, _ failure: StorageError?) async {
        _ = noteSaved(saved.id, failure)
        guard let device = await controller.device(saved.id) else { return }
        if deviceChanged(saved.id) { enqueueState(saved.state, of: device) }
    }
}

/// A reported state and the group commit that saves it.
struct SavedState: Sendable {
    var id: DeviceID
    var state: DeviceState
    var commit: Int
}
