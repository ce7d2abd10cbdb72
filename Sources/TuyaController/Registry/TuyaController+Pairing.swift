import Foundation
import LANLink
import TuyaCore
import TuyaWire

extension TuyaController {
    // MARK: - Pairing

    /// Pairs a Wi-Fi device: sends a protocol-31 query encrypted with `localKey` and waits
    /// (up to `pairingTimeout`) for a report that decrypts with it. The profile is
    /// `profileID` when given, else the one listing `productID`, else the closest fit to
    /// the DPs the device reported.
    public func pair(
        devId: String, localKey: String, profileID: String? = nil, name: String? = nil, productID: String? = nil
    ) async throws -> PairingOutcome {
        guard running else { throw PairingError.notRunning }
        let (id, key) = try PairingInput.parse(devId: devId, localKey: localKey, profileID: profileID, library: library)
        guard registry.isFree(id) else { return registry.isPairing(id) ? .pairingUnderWay : .alreadyPaired }
        let request = PairingAttempt.Request(
            id: id, name: name ?? id.rawValue, profileID: profileID, productID: productID)
        return await pairMQTT(MQTTPairingProbe(request: request, key: key, previous: nil, library: library))
    }

    /// Replaces a paired device's local key, after proving it: the device is asked with the
    /// new key and must answer in a way only the right key allows. Its name, profile,
    /// desired and confirmed state carry over. On any other outcome the old key stays in use.
    public func rekey(_ id: DeviceID, localKey: String) async throws -> PairingOutcome {
        guard running else { throw PairingError.notRunning }
        let key = try PairingInput.key(localKey, device: id.rawValue)
        guard let link = registry.link(id), let device = registry.device(id), var previous = await link.stored(),
            // The await let other calls run: the device may be gone by now.
            registry.link(id) != nil
        else { throw ControllerError.unknownDevice(id.rawValue) }
        previous.device = device
        if link is BLEDeviceLink, let reason = radio.unavailableReason { return .bleUnavailable(reason: reason) }
        // The device leaves the registry while the new key is tried, so its frames reach the
        // attempt (and a BLE or LAN device is never connected twice); it is marked as pairing
        // at once, so nothing else starts pairing it meanwhile.
        registry.unregister(id)
        registry.beginPairing(id)
        await link.stop()
        let outcome: PairingOutcome
        if link is BLEDeviceLink {
            var candidate = previous
            candidate.localKey = key
            outcome = await pairBLE(candidate, isRekey: true)
        } else if let endpoint = previous.lan {
            let request = PairingAttempt.Request(
                id: id, name: device.name, profileID: device.profileID, productID: device.productID, transport: .lan)
            outcome = await pairLAN(request, key: key, endpoint: endpoint, previous: previous)
        } else {
            let request = PairingAttempt.Request(
                id: id, name: device.name, profileID: device.profileID, productID: device.productID)
            outcome = await pairMQTT(MQTTPairingProbe(request: request, key: key, previous: previous, library: library))
        }
        if case .paired = outcome { return outcome }
        if running, registry.isFree(id), let profile = library.profile(id: device.profileID) {
            await restore(previous, profile: profile)
        }
        return outcome
    }

    /// Pairs a stock Tuya Wi-Fi device over the LAN protocol: connects to `ip` (else the
    /// address it broadcast from), agrees a session key for 3.4/3.5 (the device's answer
    /// proves the key), reads its DPs and picks its profile (`profileID`, else the one
    /// listing `productID` or the product key it broadcast, else the closest fit). The
    /// version is `version`, else the one it broadcast. Saved before "paired" is returned.
    public func pairLAN(
        devId: String, localKey: String, ip: String? = nil, version: String? = nil, profileID: String? = nil,
        name: String? = nil, productID: String? = nil
    ) async throws -> PairingOutcome {
        guard running else { throw PairingError.notRunning }
        let (id, key) = try PairingInput.parse(devId: devId, localKey: localKey, profileID: profileID, library: library)
        guard registry.isFree(id) else { return registry.isPairing(id) ? .pairingUnderWay : .alreadyPaired }
        let sighting = sightings.sighting(of: id)
        let endpoint: LANEndpoint
        switch LANPairing.endpoint(
            id: id, ip: ip, version: version, sighting: sighting, sourceID: UInt32.random(in: 1...UInt32.max))
        {
        case .proceed(let found): endpoint = found
        case .stop(let outcome): return outcome
        }
        let request = PairingAttempt.Request(
            id: id, name: name ?? id.rawValue, profileID: profileID, productID: productID ?? sighting?.productKey,
            transport: .lan)
        return await pairLAN(request, key: key, endpoint: endpoint, previous: nil)
    }

    /// Pairs a BLE device: connects to `identity`, runs the bind sequence (device info with
    /// the login key, session key, pair with the uuid) and waits (up to
    /// `blePairingTimeout`) for the answer to the first query. The profile is `profileID`
    /// when given, else the BLE profile listing `productID`; it must be known before
    /// connecting, since BLE data points are typed by it. Saved before "paired" is returned.
    public func pairBLE(
        devId: String, localKey: String, identity: BLEIdentity, profileID: String? = nil, name: String? = nil,
        productID: String? = nil
    ) async throws -> PairingOutcome {
        guard running else { throw PairingError.notRunning }
        let (id, key) = try PairingInput.parse(devId: devId, localKey: localKey, library: library)
        let profile = try library.bleProfile(profileID: profileID, productID: productID)
        guard profile.transports.contains(.ble) else {
            return .unsupported(reason: "profile \(profile.id) does not list the ble transport")
        }
        if let reason = radio.unavailableReason { return .bleUnavailable(reason: reason) }
        guard registry.isFree(id) else { return registry.isPairing(id) ? .pairingUnderWay : .alreadyPaired }
        let device = TuyaDevice(
            id: id, name: name ?? id.rawValue, profileID: profile.id, category: profile.category, transport: .ble,
            productID: productID)
        return await pairBLE(StoredDevice(device: device, localKey: key, ble: identity), isRekey: false)
    }

    /// Runs an MQTT pairing or rekey through the pairer and, when it paired, registers the
    /// saved device and feeds its link the report that proved the key.
    private func pairMQTT(_ probe: MQTTPairingProbe) async -> PairingOutcome {
        let id = probe.id
        registry.beginPairing(id)
        window.forget(id)
        let result = await mqttPairer.pair(probe)
        registry.endPairing(id)
        // Stopped while saving: it is paired and its link starts with the next start.
        guard let paired = result.paired, running else { return result.outcome }
        let link = factory.mqtt(paired.stored, profile: paired.profile)
        registry.register(link, as: paired.stored.device)
        if probe.previous == nil { hub.publish(.devicePaired(paired.stored.device)) }
        if busConnected { await link.brokerConnected() }
        await link.receive(paired.report)
        return result.outcome
    }

    /// Runs the BLE bind sequence on a link of its own, then saves the device and hands the
    /// connected link to the registry.
    private func pairBLE(_ candidate: StoredDevice, isRekey: Bool) async -> PairingOutcome {
        let id = candidate.device.id
        guard let profile = library.profile(id: candidate.device.profileID),
            let link = factory.ble(candidate, profile: profile, registered: false)
        else { return .notFound(reason: "no BLE address") }
        registry.beginPairing(id)
        defer { registry.endPairing(id) }
        let outcome = await BLEPairing.pair(
            candidate, on: link, store: store, timeout: configuration.blePairingTimeout, clock: linkClock)
        guard case .paired(let device) = outcome else { return outcome }
        guard running else {
            // Stopped while pairing: it is paired and its link starts with the next start.
            await link.stop()
            return outcome
        }
        registry.register(link, as: device)
        if !isRekey { hub.publish(.devicePaired(device)) }
        await link.adopt(hub: hub, onDesiredChange: factory.desiredRecorder(for: id))
        return outcome
    }

    /// Probes a LAN device on a link of its own, picks its profile from what it reported,
    /// saves it, and registers a link of the real profile, which connects after the probe's
    /// connection closed (never beside it).
    private func pairLAN(
        _ request: PairingAttempt.Request, key: AESKey, endpoint: LANEndpoint, previous: StoredDevice?
    ) async -> PairingOutcome {
        registry.beginPairing(request.id)
        window.forget(request.id)
        defer { registry.endPairing(request.id) }
        let pairer = LANPairing(
            factory: factory, library: library, store: store, timeout: configuration.lanPairingTimeout, clock: linkClock
        )
        let (stored, profile): (StoredDevice, DeviceProfile)
        switch await pairer.pair(request, key: key, endpoint: endpoint, previous: previous) {
        case .proceed(let paired): (stored, profile) = paired
        case .stop(let outcome): return outcome
        }
        // Stopped while pairing: it is paired and its link starts with the next start.
        guard running else { return .paired(stored.device) }
        await restore(stored, profile: profile)
        if previous == nil { hub.publish(.devicePaired(stored.device)) }
        return .paired(stored.device)
    }

    /// A datagram on a discovery port: a paired device's address follows its broadcasts; an
    /// unknown device is a candidate while the pairing window is open.
    func heard(_ datagram: LANDatagram) async {
        let now = Date(timeIntervalSince1970: TimeInterval(unixTime()))
        guard let sighting = LANSightings.decode(datagram.bytes, source: datagram.source, at: now),
            let change = sightings.record(sighting, isKept: { registry.device($0) != nil })
        else { return }
        let id = sighting.id
        if let link = registry.link(id) as? LANDeviceLink {
            // A new or changed address, or one held while the session was up (see
            // `LANDeviceLink.addressChanged`): offered to the link until it is taken or moot.
            if case .same = change, !sightings.isMoveHeld(id) { return }
            await follow(sighting.ip, on: link, id: id)
        } else if registry.isFree(id), let candidate = window.heard(id, at: now, lan: sighting) {
            hub.publish(.candidateFound(candidate))
        }
    }

    /// Offers `ip` to the link: saved by it once the device proves the key there (a
    /// broadcast is not); held while its session is up, offered again by the next broadcast.
    private func follow(_ ip: String, on link: LANDeviceLink, id: DeviceID) async {
        switch await link.addressChanged(to: ip) {
        case .moved, .unchanged: sightings.releaseMove(id)
        case .heldWhileConnected: sightings.holdMove(id)
        }
    }

    /// The address a paired LAN device's link uses now (for tests).
    func lanAddress(of id: DeviceID) async -> String? {
        await (registry.link(id) as? LANDeviceLink)?.endpoint.ip
    }

    /// Called by a LAN link after repeated connection failures: when the device's latest
    /// broadcast gives another address or version than the link uses, the link is replaced
    /// by one that uses them (never by trying each version's frames in turn).
    var reprober: @Sendable (DeviceID) -> Void {
        { [weak self] id in Task { await self?.reprobe(id) } }
    }

    func reprobe(_ id: DeviceID) async {
        guard running, let link = registry.link(id) as? LANDeviceLink, var stored = await link.stored(),
            let endpoint = stored.lan, registry.link(id) === link
        else { return }
        guard let sighting = sightings.sighting(of: id),
            // A broadcast is not authenticated: never to 3.1, whose key cannot be proven and
            // whose state comes in plaintext.
            let version = Self.reprobedVersion(stored: endpoint.version, broadcast: sighting.version),
            sighting.ip != endpoint.ip || version != endpoint.version
        else {
            // Nothing new heard: a 3.5 device may be quiet until asked (TUYA.md §2.1).
            if endpoint.version == "3.5" { await solicitAtMostEveryMinute() }
            return
        }
        guard version != endpoint.version, let profile = library.profile(id: stored.device.profileID),
            let checked = try? LANEndpoint(ip: endpoint.ip, version: version, sourceID: endpoint.sourceID)
        else {
            // Only the address: the link goes there and saves it once the device proves the key.
            await follow(sighting.ip, on: link, id: id)
            return
        }
        // Another version (a firmware update) takes a new link, which saves it once the device
        // proves the key speaking it (a broadcast is not authenticated); a new address goes the
        // same way as above, on it.
        stored.lan = checked
        // Replaced meanwhile (a rekey, a removal): that one stays.
        guard registry.link(id) === link else { return }
        registry.unregister(id)
        await link.stop()
        guard running, registry.isFree(id) else { return }
        await restore(stored, profile: profile, versionUnproven: true)
        if sighting.ip != checked.ip, let replaced = registry.link(id) as? LANDeviceLink {
            await follow(sighting.ip, on: replaced, id: id)
        }
    }
}

extension TuyaController {
    /// Whether the paired device `id` has this local key (compared in constant time); nil
    /// when no such device is paired or the key is not a valid one.
    public func hasLocalKey(_ localKey: String, for id: DeviceID) async -> Bool? {
        guard let stored = await registry.link(id)?.stored(), let key = try? AESKey(localKey: localKey) else {
            return nil
        }
        var difference: UInt8 = 0
        for (a, b) in zip(stored.localKey.bytes, key.bytes) { difference |= a ^ b }
        return difference == 0 && stored.localKey.bytes.count == key.bytes.count
    }
}

extension TuyaController {
    /// The version a re-probe takes from a broadcast: the broadcast's, unless it is 3.1 (whose
    /// key cannot be proven and whose state comes in plaintext) and the stored one is not;
    /// nil for a version this gateway does not speak.
    static func reprobedVersion(stored: String, broadcast: String) -> String? {
        guard LANEndpoint.versions.contains(broadcast) else { return nil }
        return broadcast == "3.1" && stored != "3.1" ? stored : broadcast
    }

    /// Sends the 3.5 solicitation, at most once a minute however many links ask.
    func solicitAtMostEveryMinute() async {
        let now = linkClock.now()
        if let last = lastSolicitation, now - last < .seconds(60) { return }
        lastSolicitation = now
        await lan.solicit()
    }
}
