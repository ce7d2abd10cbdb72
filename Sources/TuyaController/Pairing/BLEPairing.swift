import Timing
import TuyaCore

/// Runs the BLE bind sequence on a link of its own and turns how the probe ended into a
/// pairing outcome. The link's events go to a private hub until the controller adopts it,
/// so nobody hears of a device that is not paired.
enum BLEPairing {
    /// Starts `link`, waits (up to `timeout`) for the device to pair and answer its first
    /// query, and stops the link unless it paired.
    static func probe(_ link: BLEDeviceLink, device: TuyaDevice, timeout: Duration, clock: OffsetClock) async
        -> PairingOutcome
    {
        await link.start()
        let result = await link.probe(within: timeout, clock: clock)
        let outcome = outcome(of: result, device: device)
        if case .paired = outcome { return outcome }
        await link.stop()
        return outcome
    }

    /// Probes `candidate` on `link` and saves it once it paired (before anyone hears
    /// "paired"). The link is stopped unless it paired and was saved.
    static func pair(
        _ candidate: StoredDevice, on link: BLEDeviceLink, store: any DeviceStore, timeout: Duration,
        clock: OffsetClock
    ) async -> PairingOutcome {
        let outcome = await probe(link, device: candidate.device, timeout: timeout, clock: clock)
        guard case .paired = outcome else { return outcome }
        do {
            try await store.save(candidate)
        } catch {
            await link.stop()
            return .notSaved(reason: String(describing: error))
        }
        return outcome
    }

    /// The outcome a user can act on for each way a probe ends.
    static func outcome(of result: BLEDeviceLink.ProbeResult, device: TuyaDevice) -> PairingOutcome {
        switch result {
        case .answered:
            return .paired(device)
        case .stopped:
            return .noAnswer
        case .failed(let error):
            switch error {
            case .refused: return .refused
            case .wrongKey, .deviceInfoUnanswered: return .wrongKey
            case .connectFailed(let reason): return .notFound(reason: reason)
            case .unsupportedProtocol: return .unsupported(reason: error.description)
            default: return .noAnswer
            }
        }
    }
}
