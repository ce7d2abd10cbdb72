import Timing
import TuyaCore
import TuyaWire

/// Runs a LAN pairing probe on a link of its own (one connection, as the registry's link
/// would open) and turns how it ended into an outcome a user can act on. The link's events
/// go to a private hub until the controller adopts it.
struct LANPairing: Sendable {
    let factory: LinkFactory
    let library: ProfileLibrary
    let store: any DeviceStore
    let timeout: Duration
    let clock: OffsetClock

    /// A step of a pairing: go on with a value, or stop with an outcome.
    enum Step<Value: Sendable>: Sendable {
        case proceed(Value)
        case stop(PairingOutcome)
    }

    /// Where to reach the device: the address and version given, else the latest broadcast.
    static func endpoint(
        id: DeviceID, ip: String?, version: String?, sighting: LANSighting?, sourceID: UInt32
    ) -> Step<LANEndpoint> {
        guard let ip = ip ?? sighting?.ip else {
            return .stop(
                .notFound(
                    reason:
                        "no broadcast from \(id) was heard; give its address with --ip (and --protocol if it never broadcasts)"
                ))
        }
        guard let version = version ?? sighting?.version else {
            return .stop(
                .notFound(
                    reason: "no broadcast from \(id) was heard, so its protocol version is unknown; give --protocol 3.x"
                ))
        }
        do throws(LANEndpointError) {
            return .proceed(try LANEndpoint(ip: ip, version: version, sourceID: sourceID))
        } catch {
            if case .unsupportedVersion = error { return .stop(.unsupportedVersion(version)) }
            return .stop(.notFound(reason: error.description))
        }
    }

    /// A profile for the probe's own link, before the device's profile is known: it reads
    /// no values, only which DPs the device reports.
    static let probeProfile = DeviceProfile(
        id: "lan-probe", name: "LAN pairing probe", category: .light, productIDs: [], transports: [.lan],
        frameGapMilliseconds: 0, dataPoints: [], capabilities: [:])

    /// Probes the device on a link of its own (closed before the registered link opens its
    /// connection, never beside it), picks its profile from what it reported, and saves it.
    func pair(
        _ request: PairingAttempt.Request, key: AESKey, endpoint: LANEndpoint, previous: StoredDevice?
    ) async -> Step<(StoredDevice, DeviceProfile)> {
        let probeDevice = TuyaDevice(
            id: request.id, name: request.name, profileID: Self.probeProfile.id, category: .light, transport: .lan)
        guard
            let link = factory.lan(
                StoredDevice(device: probeDevice, localKey: key, lan: endpoint), profile: Self.probeProfile,
                registered: false)
        else { return .stop(.unsupportedVersion(endpoint.version)) }
        let dpIDs: Set<DataPointID>
        switch await Self.probe(link, timeout: timeout, clock: clock) {
        case .proceed(let reported): dpIDs = reported
        case .stop(let outcome): return .stop(outcome)
        }
        let (outcome, profile) = PairingAttempt(request: request, library: library).receivedReport(dpIDs: dpIDs)
        guard case .paired(let device) = outcome, let profile else { return .stop(outcome) }
        let stored = StoredDevice(
            device: device, localKey: key, desired: previous?.desired ?? [:], confirmed: previous?.confirmed ?? [:],
            lan: endpoint)
        do {
            try await store.save(stored)
        } catch {
            return .stop(.notSaved(reason: String(describing: error)))
        }
        return .proceed((stored, profile))
    }

    /// Starts `link`, waits (up to `timeout`) for the device's first answer, and always stops
    /// the link (the registered link opens its own connection after, never beside it).
    /// Returns the ids of the DPs it reported, to choose a profile by.
    static func probe(_ link: LANDeviceLink, timeout: Duration, clock: OffsetClock) async
        -> Step<Set<DataPointID>>
    {
        let result = await link.probe(within: timeout, clock: clock)
        await link.stop()
        if case .answered(let dpIDs) = result { return .proceed(dpIDs) }
        return .stop(outcome(of: result))
    }

    static func outcome(of result: LANDeviceLink.ProbeResult) -> PairingOutcome {
        switch result {
        case .answered:
            // Decided by the profile match, not here.
            return .noAnswer
        case .stopped:
            return .noAnswer
        case .failed(let failure):
            switch failure {
            case .refused: return .busy
            case .closedByDevice: return .busy
            case .closedAfterHandshake: return .notFound(reason: LANLinkPolicy.closedAfterHandshakeHint)
            case .closedMidFrame(let received, let expected):
                return .notFound(
                    reason: "the device did not speak the protocol: "
                        + LANLinkPolicy.midFrameHint(received: received, expected: expected))
            case .keyMismatch: return .wrongKey
            case .unreachable(let reason): return .notFound(reason: reason)
            case .protocolError(let reason):
                return .notFound(reason: "the device did not speak the protocol: \(reason)")
            case .silent: return .noAnswer
            }
        }
    }
}
