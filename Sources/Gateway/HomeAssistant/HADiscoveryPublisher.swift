import Foundation
import Logging
import TuyaCore

/// The bridge's Home Assistant discovery state: the payload builder, the reconciler and
/// the persisted ledger. The bridge asks it for a plan whenever the device list may have
/// changed, performs the plan through its outbox, then lets it record the result.
struct HADiscoveryPublisher {
    let discovery: HADiscovery
    private let store: DiscoveryLedger
    private var reconciler: DiscoveryReconciler
    /// The ledger as last written, to skip writes that change nothing.
    private var saved: Set<String>
    private let logger: Logger

    /// Reads the ledger; a damaged or unreadable one is logged and replaced, since
    /// discovery itself does not depend on it.
    init(configuration: HADiscoveryConfiguration, topics: BridgeTopics, logger: Logger) {
        discovery = HADiscovery(settings: configuration.discovery, topics: topics)
        store = DiscoveryLedger(file: configuration.ledgerFile)
        self.logger = logger
        var ledger: Set<String> = []
        do {
            ledger = try store.load()
        } catch {
            logger.warning("\(error)")
        }
        reconciler = DiscoveryReconciler(ledger: ledger)
        saved = ledger
    }

    /// The configs to publish and clear for `devices`. A device whose profile is not loaded
    /// cannot be driven, so it gets no new config; but the config it had stays on the broker
    /// (`keeping`, the paired devices that cannot be driven), so Home Assistant keeps its
    /// entities, with their areas and names, until the profile is fixed or the device removed.
    mutating func plan(
        devices: [TuyaDevice], keeping: [TuyaDevice] = [], library: ProfileLibrary, republish: Bool
    ) -> DiscoveryReconciler.Plan {
        var messages = [discovery.bridgeMessage()]
        let kept = Set(keeping.map { discovery.configTopic(objectID: discovery.objectID(for: $0.id)) })
        for device in devices {
            guard let profile = library.profile(id: device.profileID) else { continue }
            messages.append(discovery.message(for: device, profile: profile))
        }
        let plan = reconciler.plan(messages, keeping: kept, republish: republish)
        if let grown = plan.ledgerBeforePublishing { save(grown) }
        return plan
    }

    /// Records the current set once the clears of the last plan have left the outbox.
    mutating func commitLedger() {
        save(reconciler.ledger)
    }

    private mutating func save(_ topics: Set<String>) {
        guard topics != saved else { return }
        do {
            try store.save(topics)
            saved = topics
        } catch {
            logger.warning("\(error)")
        }
    }
}

/// `home_assistant` in the configuration; absent when the feature is switched off.
public struct HADiscoveryConfiguration: Hashable, Sendable {
    public var discovery: HADiscovery.Settings
    /// `<state>/ha-discovery.json`.
    public var ledgerFile: URL

    public init(discovery: HADiscovery.Settings, ledgerFile: URL) {
        self.discovery = discovery
        self.ledgerFile = ledgerFile
    }

    /// The ledger's place in a state directory.
    public static func ledgerFile(inStateDirectory directory: URL) -> URL {
        directory.appendingPathComponent(DiscoveryLedger.fileName)
    }
}
