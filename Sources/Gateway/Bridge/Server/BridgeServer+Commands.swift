import TuyaController
import TuyaCore
import TuyaWire

extension BridgeServer {
    /// `<base>/<name>/set`: a typed command for one device. With a `transaction` the outcome
    /// is answered on `bridge/response/device/set`; a failure is also a `command_failed` event.
    func handleSet(name: String, payload: [UInt8]) async {
        let verb = "device/set"
        let transaction = BridgeRequest.transaction(in: payload)
        guard let device = await controller.device(named: name) else {
            logger.notice("command for unknown device \"\(name.prefix(64))\" ignored")
            if transaction != nil {
                respond(
                    verb, .failure(verb: verb, message: "no device is named \"\(name.prefix(64))\" or has that id"),
                    transaction: transaction)
            }
            return
        }
        var sentAt: ContinuousClock.Instant?
        do {
            let command = try await parseCommand(payload, for: device)
            metrics.commandsSent.increment()
            let start = ContinuousClock.now
            sentAt = start
            let state = try await controller.send(command, to: device.id)
            metrics.recordCommand(.confirmed, latency: .now - start)
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
                            id: device.id.rawValue, friendlyName: device.name, state: DeviceStatePayload.json(state))),
                    transaction: transaction)
            }
        } catch {
            counters.commandsFailed += 1
            if let sentAt {
                let timedOut = if case ControllerError.confirmationTimeout = error { true } else { false }
                metrics.recordCommand(timedOut ? .timedOut : .failed, latency: .now - sentAt)
            }
            let message = Self.describe(error)
            logger.notice("command for \(device.name) failed: \(message)")
            if transaction != nil { respond(verb, .failure(verb: verb, message: message), transaction: transaction) }
            await emit(
                "command_failed", device: device.id,
                BridgeJSON.object(
                    CommandFailedPayload(id: device.id.rawValue, friendlyName: device.name, error: message)))
        }
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
