import Foundation
import Storage
import TuyaController
import TuyaCore
import TuyaWire

extension BridgeServer {
    /// Parses and performs one request, and answers it on `bridge/response/<verb>`.
    func answer(verb: String, payload received: [UInt8]) async {
        guard BridgeRequest.isAnswerable(verb: verb) else {
            refuseUnanswerable(verb: verb, payload: received)
            return
        }
        let transaction = BridgeRequest.transaction(in: received)
        guard BridgeRequest.verbs.contains(verb) else {
            logRefusal(.unknownRequest, "refused unknown request \(verb)")
            let known = BridgeRequest.verbs.joined(separator: ", ")
            respond(verb, .failure(verb: verb, message: "unknown request; known: \(known)"), transaction: transaction)
            return
        }
        let payload: [UInt8]
        switch secure(verb: verb, payload: received) {
        case .accepted(let accepted): payload = accepted
        case .refused(let refusal):
            logRefusal(.unsignedRequest, "refused request \(verb): \(refusal.message)")
            metrics.recordRefusedRequest(reason: refusal.reason)
            let failure = BridgeResult.failure(
                verb: verb, message: refusal.message,
                data: BridgeJSON.object(FailureReasonPayload(reason: refusal.reason)))
            respond(verb, failure, transaction: transaction)
            return
        }
        let result: BridgeResult
        do throws(BridgePayloadError) {
            let request = try BridgeRequest.parse(verb: verb, payload: payload)
            // The request is logged by verb only: device/add and device/rekey carry a local key.
            logger.info("request \(verb)")
            result = await perform(request, verb: verb)
        } catch {
            logRefusal(.badRequest, "refused request \(verb): \(error)")
            result = .failure(verb: verb, message: error.description)
        }
        respond(verb, result, transaction: transaction)
    }

    /// Logs a refusal of `kind` (notice level) within the bridge's `LogBudget`.
    func logRefusal(_ kind: LogBudget.Kind, _ line: @autoclosure () -> String) {
        guard let held = counters.logBudget.admit(kind, at: time.now()) else { return }
        let note = held > 0 ? " (\(held) more like it since the last one were not logged)" : ""
        logger.notice("\(line())\(note)")
    }

    /// A request on a topic whose verb cannot be echoed in a response topic (upper case,
    /// non-ASCII, `..`, spaces, over 64 bytes): answered on the fixed
    /// `bridge/response/invalid`, so the caller hears why instead of nothing.
    func refuseUnanswerable(verb: String, payload: [UInt8]) {
        logRefusal(
            .unanswerableRequest, "refused a request on an unanswerable topic (\(verb.utf8.count) bytes of verb)")
        respond(
            BridgeRequest.invalidVerbTopic,
            BridgeResult(outcome: .error(BridgeRequest.whyUnanswerable(verb: verb)), data: [:]),
            transaction: BridgeRequest.transaction(in: payload))
    }

    private func perform(_ request: BridgeRequest, verb: String) async -> BridgeResult {
        do {
            switch request {
            case .permitJoin(let open, let seconds, let transport):
                return .ok(try await permitJoin(open: open, seconds: seconds, transport: transport))
            case .deviceAdd(let add): return .ok(try await addDevice(add))
            case .deviceRemove(let reference): return .ok(try await removeDevice(reference))
            case .deviceRename(let from, let to): return .ok(try await renameDevice(from, to: to))
            case .deviceRekey(let reference, let key): return .ok(try await rekeyDevice(reference, key: key))
            case .deviceRefresh(let reference):
                let device = try await resolve(reference, field: "id")
                try await controller.refresh(device.id)
                return .ok(DeviceIdentityPayload(device))
            case .healthCheck: return .ok(await health())
            case .backup: return .ok(try makeBackup())
            case .maintenance(let request): return .ok(try await performMaintenance(request))
            case .session(let request): return .ok(try await performSession(request))
            }
        } catch let failure as BridgeFailure {
            return .failure(verb: verb, message: failure.message, data: failure.data)
        } catch {
            return .failure(verb: verb, message: Self.describe(error))
        }
    }

    /// The device `reference` names in `devices`: by friendly name first, then by id.
    static func device(named reference: String, in devices: [TuyaDevice]) -> TuyaDevice? {
        devices.first { $0.name == reference } ?? devices.first { $0.id.rawValue == reference }
    }

    /// A device named by friendly name (first) or id.
    func resolve(_ reference: String, field: String, includingUnloaded: Bool = false) async throws -> TuyaDevice {
        var devices = await controller.devices()
        if includingUnloaded { devices += await controller.inactiveDevices.map(\.device) }
        if let device = Self.device(named: reference, in: devices) { return device }
        throw BridgeFailure(message: "\(field): " + (await whyNoDevice(named: reference)))
    }

    /// Refuses a name another device uses as its name or id (either would make `<base>/<name>` ambiguous).
    /// Refuses a name another device has; returns a warning (also logged) when the name
    /// mixes scripts and looks like another device's (`bridgе` with a Cyrillic е).
    @discardableResult
    private func checkNameFree(_ name: String, for id: DeviceID, field: String) async throws -> String? {
        var warning: String?
        for device in await controller.devices() where device.id != id {
            if device.name == name || device.id.rawValue == name {
                throw BridgeFailure(message: "\(field): \"\(name)\" is already used by device \(device.id)")
            }
            if warning == nil { warning = (try? DeviceName(text: name))?.lookalikeWarning(of: device.name) }
        }
        if let warning { logger.warning("\(field): \(warning)") }
        return warning
    }

    // MARK: - Pairing

    /// Opens or closes the pairing window. Wi-Fi: unknown devIds on the broker, and LAN
    /// devices heard broadcasting (the 3.5 solicitation goes out), become `device_found`;
    /// BLE: a scan reports Tuya adverts as `device_found` with `transport: ble`.
    /// Asking for BLE alone where BLE cannot work is an error naming why.
    private func permitJoin(open: Bool, seconds: Int?, transport: Transport?) async throws -> PermitJoinPayload {
        permitJoinTimer?.cancel()
        permitJoinTimer = nil
        guard open else {
            await closePermitJoin()
            return .closed
        }
        if transport == .ble, case .unavailable(let reason) = settings.ble {
            throw BridgeFailure(message: "transport: BLE cannot be used: \(reason)")
        }
        let duration = seconds.map { Duration.seconds($0) } ?? settings.permitJoinDefault
        pairingWindow.open(for: duration, now: time.now())
        let secondsOpen = duration.components.seconds
        var data = PermitJoinPayload(value: true, time: secondsOpen)
        if transport != .ble {
            await controller.openPairingWindow()
            data.lanCandidates = await lanCandidates().map(DeviceFoundPayload.init)
        }
        if transport == nil || transport == .ble {
            switch settings.ble {
            case .available(let adapter):
                try await startBLEScan(adapter: adapter)
            case .unavailable(let reason):
                data.ble = "unavailable: \(reason)"
            }
        }
        let clock = clock
        permitJoinTimer = Task { [weak self] in
            do { try await clock.sleep(for: duration) } catch { return }
            await self?.closePermitJoin()
        }
        logger.info("pairing permitted for \(secondsOpen) s (\(transport?.rawValue ?? "mqtt, lan and ble"))")
        await emit("permit_join_changed", BridgeJSON.object(data))
        publishInfo()
        return data
    }

    /// LAN devices heard broadcasting that are not paired, by id.
    private func lanCandidates() async -> [LANSighting] {
        let paired = Set(await controller.devices().map(\.id))
        return await controller.lanSightings().filter { !paired.contains($0.id) }.sorted {
            $0.id.rawValue < $1.id.rawValue
        }
    }

    private func startBLEScan(adapter: String) async throws {
        await bleScan?.stop()
        let scan = BLEPairingScan(scanner: settings.bleScanner?(), adapter: adapter, library: library)
        do {
            try await scan.start { [weak self] device in
                await self?.emit("device_found", device.eventData)
            }
        } catch {
            throw BridgeFailure(message: "transport: the BLE scan could not start: \(error)")
        }
        bleScan = scan
    }

    func closePermitJoin() async {
        guard pairingWindow.close() else { return }
        permitJoinTimer = nil
        await controller.closePairingWindow()
        await bleScan?.stop()
        bleScan = nil
        logger.info("pairing window closed")
        await emit("permit_join_changed", BridgeJSON.object(PermitJoinPayload.closed))
        publishInfo()
    }

    private func addDevice(_ add: BridgeRequest.DeviceAdd) async throws -> DeviceAddedPayload {
        let name = add.name?.text ?? add.id.rawValue
        if add.transport == .ble, case .unavailable(let reason) = settings.ble {
            throw BridgeFailure(message: "transport: BLE cannot be used: \(reason)", reason: "ble_unavailable")
        }
        if let profile = add.profileID, library.profile(id: profile) == nil {
            let known = library.all.map(\.id).joined(separator: ", ")
            throw BridgeFailure(message: "profile: no profile \"\(profile.prefix(64))\" (known: \(known))")
        }
        if let paired = await controller.device(add.id) { return try await pairedAgain(paired, add) }
        let warning = try await checkNameFree(name, for: add.id, field: add.name == nil ? "id" : "name")
        await emit("pairing_started", device: add.id, BridgeJSON.object(PairingStartedPayload(id: add.id.rawValue)))
        let outcome = try await pair(add, name: name)
        guard case .paired(let device) = outcome else {
            let reason = Self.reason(outcome)
            await pairingFailed(add.id, reason: reason, message: outcome.description)
            throw BridgeFailure(message: outcome.description, reason: reason)
        }
        // The answer follows the device list that names it: whoever reads the list next finds it.
        await publishDevicesCoalesced()
        let entry = BridgeDevicePayload(device, profile: library.profile(id: device.profileID))
        logger.info("paired \(device.name) (\(device.id)) with profile \(device.profileID)")
        await emit("device_paired", device: device.id, BridgeJSON.object(DevicePairedPayload(device: entry)))
        // The answer has the shape of an entry of `devices --json` (issue 14 item 18).
        return DeviceAddedPayload(
            device: entry, availability: (await controller.status(of: device.id)?.availability ?? .unknown).rawValue,
            warning: warning)
    }

    /// `device/add` for a device already paired: the same key changes nothing and answers as
    /// a new pairing would (an import run twice); another key is refused with how to rekey.
    private func pairedAgain(_ paired: TuyaDevice, _ add: BridgeRequest.DeviceAdd) async throws -> DeviceAddedPayload {
        switch await controller.hasLocalKey(add.localKey.text, for: add.id) {
        case true?:
            return DeviceAddedPayload(
                device: BridgeDevicePayload(paired, profile: library.profile(id: paired.profileID)),
                availability: (await controller.status(of: paired.id)?.availability ?? .unknown).rawValue,
                alreadyPaired: true)
        case false?:
            let message =
                "\(paired.name) is already paired with a different local key; to change it run `youll-devices rekey \(paired.name)`"
            await pairingFailed(add.id, reason: "already_paired", message: message)
            throw BridgeFailure(message: "local_key: \(message)", reason: "already_paired")
        case nil:
            await pairingFailed(add.id, reason: "already_paired", message: PairingOutcome.alreadyPaired.description)
            throw BridgeFailure(message: "id: \(PairingOutcome.alreadyPaired.description)", reason: "already_paired")
        }
    }

    /// Pairs over the transport `add` names; a request the controller refuses is reported as
    /// a failed pairing.
    private func pair(_ add: BridgeRequest.DeviceAdd, name: String) async throws -> PairingOutcome {
        do {
            if let identity = add.ble {
                return try await controller.pairBLE(
                    devId: add.id.rawValue, localKey: add.localKey.text, identity: identity, profileID: add.profileID,
                    name: name, productID: add.productID)
            } else if let lan = add.lan {
                return try await controller.pairLAN(
                    devId: add.id.rawValue, localKey: add.localKey.text, ip: lan.ip, version: lan.version,
                    profileID: add.profileID, name: name, productID: add.productID)
            }
            return try await controller.pair(
                devId: add.id.rawValue, localKey: add.localKey.text, profileID: add.profileID, name: name,
                productID: add.productID)
        } catch {
            let message = Self.describe(error)
            await pairingFailed(add.id, reason: "invalid_request", message: message)
            throw BridgeFailure(message: message, reason: "invalid_request")
        }
    }

    private func pairingFailed(_ id: DeviceID, reason: String, message: String) async {
        logger.notice("pairing \(id) failed: \(message)")
        await emit(
            "pairing_failed", device: id,
            BridgeJSON.object(PairingFailedPayload(id: id.rawValue, reason: reason, message: message)))
    }

    static func reason(_ outcome: PairingOutcome) -> String {
        switch outcome {
        case .paired: "paired"
        case .wrongKey: "wrong_key"
        case .noAnswer: "no_answer"
        case .unknownProduct: "unknown_product"
        case .alreadyPaired: "already_paired"
        case .pairingUnderWay: "pairing_under_way"
        case .notSaved: "storage_failed"
        case .refused: "refused"
        case .notFound: "not_found"
        case .bleUnavailable: "ble_unavailable"
        case .unsupported: "unsupported"
        case .busy: "busy"
        case .unsupportedVersion: "unsupported_version"
        }
    }

    // MARK: - Registry

    private func removeDevice(_ reference: String) async throws -> [String: JSONValue] {
        // A device that cannot be driven can be removed too (it is listed with its problem).
        let device = try await resolve(reference, field: "id", includingUnloaded: true)
        try await controller.remove(device.id)
        // Home Assistant's entities go first: an entity still subscribed when its state
        // topic is cleared reads the empty payload as broken JSON and logs template errors.
        await publishDevices()
        await publisher.outbox.flush(timeout: .seconds(5))
        for topic in topics.retainedDeviceTopics(device.name) { publisher.clearRetained(topic) }
        let data = BridgeJSON.object(DeviceIdentityPayload(device))
        logger.info("removed \(device.name) (\(device.id))")
        await emit("device_removed", device: device.id, data)
        return data
    }

    private func renameDevice(_ reference: String, to name: DeviceName) async throws -> [String: JSONValue] {
        let device = try await resolve(reference, field: "from")
        let warning = try await checkNameFree(name.text, for: device.id, field: "to")
        var renamedPayload = DeviceRenamedPayload(id: device.id.rawValue, from: device.name, to: name.text)
        guard device.name != name.text else { return BridgeJSON.object(renamedPayload) }
        let renamed = try await controller.rename(device.id, to: name.text)
        // The new names first (devices, Home Assistant's configs now on the new topics, the
        // state there), and the old topics cleared only once that reached the broker: Home
        // Assistant, still subscribed to an old topic, would read its clearing as broken JSON.
        // Every topic of `BridgeTopics.retainedDeviceTopics` is published under the new name.
        await publishDevices()
        enqueueAvailability(renamed, await controller.status(of: device.id), force: true)
        if let state = await reportedState(of: device.id) { enqueueState(state, of: renamed) }
        await maintenance?.deviceRenamed(device.id, to: renamed.name)
        await publisher.outbox.flush(timeout: .seconds(5))
        for topic in topics.retainedDeviceTopics(device.name) { publisher.clearRetained(topic) }
        logger.info("renamed \(device.id) from \(device.name) to \(name.text)")
        await emit("device_renamed", device: device.id, BridgeJSON.object(renamedPayload))
        renamedPayload.warning = warning
        return BridgeJSON.object(renamedPayload)
    }

    private func rekeyDevice(_ reference: String, key: SecretKey) async throws -> [String: JSONValue] {
        let device = try await resolve(reference, field: "id")
        let outcome = try await controller.rekey(device.id, localKey: key.text)
        guard case .paired = outcome else {
            throw BridgeFailure(
                message: "the new key was not accepted, the old one stays in use: \(outcome.description)",
                reason: Self.reason(outcome))
        }
        let data = BridgeJSON.object(DeviceIdentityPayload(device))
        logger.info("rekeyed \(device.name) (\(device.id))")
        await emit("device_rekeyed", device: device.id, data)
        return data
    }

    // MARK: - Health and backup

    private func health() async -> [String: JSONValue] {
        var counts: [String: Int] = [:]
        for availability in Availability.allCases { counts[availability.rawValue] = 0 }
        let devices = await controller.devices()
        for device in devices {
            let availability = await controller.status(of: device.id)?.availability ?? .unknown
            counts[availability.rawValue, default: 0] += 1
        }
        let readable = (try? await database.recentEvents(limit: 1)) != nil
        let databaseState = !readable ? "failing" : databaseProblem.map { "degraded: \($0)" } ?? "ok"
        return BridgeJSON.object(
            HealthCheckPayload(
                healthy: isConnected && databaseState == "ok", broker: isConnected ? "connected" : "disconnected",
                database: databaseState, uptimeSeconds: uptime.components.seconds, devices: counts,
                permitJoin: pairingWindow.isOpen, ble: await bleHealth(devices: devices)))
    }

    /// The adapter's links, by friendly name.
    private func bleHealth(devices: [TuyaDevice]) async -> HealthCheckPayload.BLE {
        let snapshot = await controller.bleConnections()
        let names = Dictionary(devices.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        func list(_ ids: [DeviceID]) -> [String] { ids.map { names[$0] ?? $0.rawValue } }
        var unavailable: String?
        if case .unavailable(let reason) = settings.ble { unavailable = reason }
        return HealthCheckPayload.BLE(
            adapter: snapshot.adapter, limit: snapshot.limit, connected: list(snapshot.connected),
            waiting: list(snapshot.waiting), unavailable: unavailable)
    }

    /// One line for a response or event; never includes a key.
    static func describe(_ error: any Error) -> String {
        if let failure = error as? BridgeFailure { return failure.message }
        return String(describing: error)
    }
}
