import Foundation
import TuyaCore

/// Home Assistant discovery (README "Home Assistant"): configs are enqueued right after
/// `bridge/devices` in every full republish (so before availability and state), updated
/// when a device is paired, renamed or removed, and republished with the state when Home
/// Assistant announces itself `online` on `<prefix>/status`.
extension BridgeServer {
    /// Enqueues the discovery plan for `devices`, keeping the configs of the paired devices
    /// that cannot be driven (`keeping`). Does not suspend, so `republishAll` keeps
    /// its order. With Home Assistant switched off it does nothing, and clears nothing.
    func enqueueDiscovery(_ devices: [TuyaDevice], keeping: [TuyaDevice], republish: Bool) {
        guard var discovery = discoveryPublisher else { return }
        let plan = discovery.plan(devices: devices, keeping: keeping, library: library, republish: republish)
        discoveryPublisher = discovery
        // Clears first, so a reader that sees the new configs no longer sees the old ones.
        for topic in plan.clear {
            logger.info("clearing Home Assistant discovery \(topic): no such device any more")
            publisher.clearRetained(topic)
        }
        for publication in plan.publish {
            publisher.send(publication.topic, publication.payload, retain: true)
        }
        guard !plan.clear.isEmpty else { return }
        // The ledger forgets a cleared topic only once the clear has left the outbox, so a
        // crash in between clears it again at the next start.
        Task { [weak self] in await self?.commitDiscoveryLedger() }
    }

    private func commitDiscoveryLedger() async {
        await publisher.outbox.flush(timeout: .seconds(5))
        discoveryPublisher?.commitLedger()
    }

    /// Home Assistant said `online`: everything is republished, at once or, within
    /// `BirthRepublishes.interval` of the last republish, once at its end.
    func homeAssistantCameOnline() async {
        switch births.birth(at: time.now()) {
        case .now:
            logger.info("Home Assistant is online; republishing discovery and state")
            await republishAll()
        case .at(let due):
            let sleepUntil = time.sleepUntil
            births.trailing = Task { [weak self] in
                do { try await sleepUntil(due) } catch { return }
                await self?.republishAfterBirths()
            }
        case .coalesced:
            break
        }
    }

    private func republishAfterBirths() async {
        guard !Task.isCancelled else { return }
        births.trailingRan(at: time.now())
        logger.info("Home Assistant said online again; republishing discovery and state")
        await republishAll()
    }

    /// Whether `topic` is Home Assistant's status topic, and the message asks for a republish.
    func isHomeAssistantBirth(topic: String, payload: [UInt8]) -> Bool? {
        guard let publisher = discoveryPublisher, topic == publisher.discovery.statusTopic else { return nil }
        return String(decoding: payload, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "online"
    }
}
