import Crypto
import TuyaCore
import TuyaWire

/// Decides which discovery configs to publish and which to clear, given the messages the
/// current devices need. Pure: the bridge performs the plan and persists the ledger.
///
/// - A config is published when it is new or changed (a rename changes its topics), and
///   every config is published again on `republish` (a new connection, Home Assistant's
///   birth message).
/// - A topic in the ledger (this run's or a previous run's) that no current device needs
///   is cleared with an empty retained payload.
struct DiscoveryReconciler {
    struct Plan: Equatable {
        var publish: [Publication] = []
        /// Sorted.
        var clear: [String] = []
        /// The topics to record before publishing (the ledger grows first, so a crash
        /// between the two still knows what may be on the broker); nil when unchanged.
        var ledgerBeforePublishing: Set<String>?
    }

    struct Publication: Equatable {
        var topic: String
        var payload: [UInt8]
    }

    /// Every topic that may hold a config on the broker.
    private(set) var ledger: Set<String>
    /// What this run published on each topic, to skip unchanged configs: a digest, not the
    /// payload (1,000 devices' configs held several MB for nothing but this comparison).
    private var published: [String: SHA256.Digest] = [:]

    init(ledger: Set<String>) {
        self.ledger = ledger
    }

    /// `keeping`: topics neither published nor cleared (a paired device whose profile did not
    /// load: clearing would make Home Assistant delete its entities and their settings).
    mutating func plan(_ messages: [HADiscovery.Message], keeping: Set<String> = [], republish: Bool) -> Plan {
        var plan = Plan()
        var wanted = keeping.intersection(ledger.union(published.keys))
        for message in messages {
            wanted.insert(message.topic)
            let payload = CompactJSON.encode(message.payload)
            let digest = SHA256.hash(data: payload)
            guard republish || published[message.topic] != digest else { continue }
            plan.publish.append(Publication(topic: message.topic, payload: payload))
            published[message.topic] = digest
        }
        plan.clear = ledger.union(published.keys).subtracting(wanted).sorted()
        for topic in plan.clear { published[topic] = nil }
        if !wanted.isSubset(of: ledger) { plan.ledgerBeforePublishing = ledger.union(wanted) }
        ledger = wanted
        return plan
    }
}
