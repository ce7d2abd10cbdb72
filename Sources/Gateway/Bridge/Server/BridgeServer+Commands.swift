import TuyaController
import TuyaCore
import TuyaWire

extension BridgeServer {
    /// `<base>/<name>/set`: a typed command for one device. With a `transaction` the outcome
    /// is answered on `bridge/response/device/set`; a failure is also a `command_failed` event.
    /// `place` is this command's in the order `/set` commands arrived (`setLookups`): the names
    /// are resolved in that order, and each takes its device's place (`SetLanes`) as it is,
    /// so commands to one device are queued on its link in the order they arrived, whether
    /// they named it by its name or by its id; each then waits for its own confirmation.
    func handleSet(name: String, payload: [UInt8], place: Int) async {
        let verb = "device/set"
        let transaction = BridgeRequest.transaction(in: payload)
        if !setLookups.isTurn(of: place) {
            await withCheckedContinuation { setLookups.wait($0, for: place) }
        }
        let found = await controller.device(named: name)
        let lane = found.map { setLanes.take($0.id) }
        setLookups.leave()?.resume()
        guard let found, let lane else {
            logRefusal(
                .unknownDevice,
                "command for unknown device \"\(BridgeText.printable(name, maximumLength: 64))\" ignored")
            if transaction != nil {
                respond(verb, .failure(verb: verb, message: await whyNoDevice(named: name)), transaction: transaction)
            }
            return
        }
        if !setLanes.isTurn(of: lane, in: found.id) {
            await withCheckedContinuation { setLanes.wait($0, for: lane, in: found.id) }
        }
        let submitted = await submit(payload, to: found)
        setLanes.leave(found.id)?.resume()
        switch consume submitted {
        case .failed(let device, let error, let sentAt):
            await commandFailed(device, error, sentAt: sentAt, transaction: transaction)
        case .queued(let device, let receipt, let sentAt):
            do {
                let state = try await receipt.confirmation()
                metrics.recordCommand(.confirmed, latency: .now - sentAt)
                // Saved before the answer, so a confirmed command survives a crash that follows it;
                // an answer never says "ok" for a state the gateway could not keep.
                if let failure = await persistConfirmed(device.id) {
                    throw BridgeFailure(
                        message:
                            "\(device.name) confirmed the command, but the gateway could not save it (\(failure)); "
                            + "it would be lost if the gateway restarted: check the state directory's disk")
                }
                if transaction != nil {
                    respond(
                        verb,
                        .ok(
                            CommandConfirmedPayload(
                                id: device.id.rawValue, friendlyName: device.name, state: DeviceStatePayload.json(state)
                            )),
                        transaction: transaction)
                }
            } catch {
                await commandFailed(device, error, sentAt: sentAt, transaction: transaction)
            }
        }
    }

    /// A `/set` taken as far as its device's link, or why it went no further.
    private enum Submitted: ~Copyable {
        /// Not valid for the device (`sentAt` nil), or refused by the controller.
        case failed(TuyaDevice, any Error, sentAt: ContinuousClock.Instant?)
        case queued(TuyaDevice, CommandReceipt, sentAt: ContinuousClock.Instant)
    }

    /// Parses the command and queues it on the device's link.
    private func submit(_ payload: [UInt8], to device: TuyaDevice) async -> Submitted {
        let command: DeviceCommand
        do {
            command = try await parseCommand(payload, for: device)
        } catch {
            return .failed(device, error, sentAt: nil)
        }
        metrics.commandsSent.increment()
        let start = ContinuousClock.now
        do {
            return .queued(device, try await controller.submit(command, to: device.id), sentAt: start)
        } catch {
            return .failed(device, error, sentAt: start)
        }
    }

    /// Why a command for `name` found no device: none has that name or id, or the one that
    /// has cannot be driven (its profile did not load, its stored key or record is unusable).
    func whyNoDevice(named name: String) async -> String {
        let inactive = await controller.inactiveDevices
        if let device = Self.device(named: name, in: inactive.map(\.device)),
            let found = inactive.first(where: { $0.device.id == device.id })
        {
            return "\(device.name) cannot be driven: \(found.problem) (\(found.fix))"
        }
        return "no device is named \"\(name.prefix(64))\" or has that id"
    }

    private func commandFailed(
        _ device: TuyaDevice, _ error: any Error, sentAt: ContinuousClock.Instant?, transaction: JSONValue?
    ) async {
        let verb = "device/set"
        counters.commandsFailed += 1
        if let sentAt {
            let timedOut = if case ControllerError.confirmationTimeout = error { true } else { false }
            metrics.recordCommand(timedOut ? .timedOut : .failed, latency: .now - sentAt)
        }
        let message = Self.describe(error)
        logRefusal(.commandFailed(device.id), "command for \(device.name) failed: \(message)")
        if transaction != nil { respond(verb, .failure(verb: verb, message: message), transaction: transaction) }
        await emit(
            "command_failed", device: device.id,
            BridgeJSON.object(CommandFailedPayload(id: device.id.rawValue, friendlyName: device.name, error: message)))
    }

    private func parseCommand(_ payload: [UInt8], for device: TuyaDevice) async throws -> DeviceCommand {
        let value: JSONValue
        do {
            value = try CompactJSON.decode(payload)
        } catch {
            throw BridgeFailure(message: "payload: not JSON: \(error)")
        }
        guard var object = value.objectValue else {
            throw BridgeFailure(message: "payload: expected a JSON object such as {\"state\":\"ON\"}")
        }
        object["transaction"] = nil
        // Read only when the command depends on it: it is a hop to the controller and a
        // mapping of every data point, for each of the gateway's busiest requests.
        let current =
            DeviceSetPayload.needsCurrentState(object) ? await controller.pendingState(of: device.id) : nil
        do throws(BridgePayloadError) {
            return try DeviceSetPayload.parse(object, category: device.category, current: current)
        } catch {
            throw BridgeFailure(message: error.description)
        }
    }

    /// `<base>/<name>/get`: asks the device for all its values; its report republishes `<base>/<name>`.
    /// The state known now is republished at once, so a reader gets an answer even from an offline device.
    func handleGet(name: String) async {
        guard let device = await controller.device(named: name) else { return }
        try? await controller.refresh(device.id)
        if let state = await reportedState(of: device.id) { enqueueState(state, of: device) }
    }

    /// Publishes `{status, data, error, transaction}` on `bridge/response/<verb>`.
    func respond(_ verb: String, _ result: BridgeResult, transaction: JSONValue?) {
        counters.requestsAnswered += 1
        var response = BridgeResponsePayload(status: "ok", data: result.data, transaction: transaction)
        if case .error(let message) = result.outcome {
            response.status = "error"
            response.error = message
        }
        enqueue(topics.response(verb), BridgeJSON.value(response))
    }
}
