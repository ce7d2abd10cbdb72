import Timing
import TuyaCore

/// A link that pairing runs on a private hub until the registry adopts it (BLE and LAN; MQTT
/// pairing probes the shared bus instead). The probe bookkeeping and the hand-over are
/// written once, here.
protocol ProbedDeviceLink: DeviceLinkDriver {
    associatedtype ProbeResult: ProbeEnding
    /// Pairing's callers waiting for the link's first answer.
    var probes: [CheckedContinuation<ProbeResult, Never>] { get set }
    /// Makes the link work toward a first answer (connect, or ask for the device's values).
    func beginProbe()
}

/// How a probe ended; every kind of link has a `stopped` ending.
protocol ProbeEnding: Sendable {
    static var stopped: Self { get }
}

extension ProbedDeviceLink {
    /// Returns when the link reaches its first answer, when a failure ends it first, or when the
    /// link is stopped. The pairing caller bounds it by stopping the link at its deadline.
    func probe() async -> ProbeResult {
        guard !isStopped else { return .stopped }
        return await withCheckedContinuation { continuation in
            probes.append(continuation)
            beginProbe()
        }
    }

    /// `probe()`, with the link stopped when `timeout` has passed on `clock` without an ending.
    nonisolated func probe(within timeout: Duration, clock: OffsetClock) async -> ProbeResult {
        let sleepUntil = clock.sleepUntil
        let deadline = clock.now() + timeout
        let timer = Task {
            do { try await sleepUntil(deadline) } catch { return }
            await stop()
        }
        let result = await probe()
        timer.cancel()
        return result
    }

    /// Answers every waiting probe with `result`.
    func finishProbes(_ result: ProbeResult) {
        let waiting = probes
        probes = []
        for probe in waiting { probe.resume(returning: result) }
    }

    /// Hands a link that paired under a private hub to the registry: events now go to
    /// `hub`, desired-state changes to `onDesiredChange`, and the current availability and
    /// state are announced there, so subscribers learn them as for any other device.
    func adopt(hub: EventHub, onDesiredChange: @escaping @Sendable (DataPoints) -> Void) {
        driver.listeners = LinkListeners(hub: hub, onDesiredChange: onDesiredChange)
        perform(core.reannounce())
    }
}
