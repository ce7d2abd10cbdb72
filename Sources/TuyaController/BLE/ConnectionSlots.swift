/// The simultaneous connections one BLE adapter allows, shared fairly: a pure core
/// deciding who may connect now and who waits, first come first served.
///
/// Adapters hold only a few LE connections at once (BlueZ controllers commonly 3–7,
/// cheap dongles fewer), so a gateway with more BLE devices than slots queues the
/// surplus. FIFO order means an on-demand device waiting for a command is served before
/// any device that asked later, so none waits forever.
struct ConnectionSlots<Key: Hashable & Sendable>: Sendable {
    static var defaultLimit: Int { 3 }

    let limit: Int
    private(set) var holders: Set<Key> = []
    /// Waiting keys, oldest first.
    private(set) var waiting: [Key] = []

    /// `limit` is at least 1.
    init(limit: Int = Self.defaultLimit) {
        self.limit = max(1, limit)
    }

    /// Asks for a slot: true when granted now (or already held), false when queued.
    /// A key that is already queued keeps its place.
    mutating func request(_ key: Key) -> Bool {
        if holders.contains(key) { return true }
        if waiting.isEmpty, holders.count < limit {
            holders.insert(key)
            return true
        }
        if !waiting.contains(key) { waiting.append(key) }
        return false
    }

    /// Gives a slot back (or leaves the queue) and returns the keys granted as a result,
    /// in the order they asked.
    mutating func release(_ key: Key) -> [Key] {
        holders.remove(key)
        waiting.removeAll { $0 == key }
        var granted: [Key] = []
        while holders.count < limit, !waiting.isEmpty {
            let next = waiting.removeFirst()
            holders.insert(next)
            granted.append(next)
        }
        return granted
    }
}
