/// Host-to-controller ACL flow control (Core Specification Vol 4 Part E §4.1.1): the controller
/// has `capacity` LE ACL buffers; each packet sent takes one until a Number Of Completed Packets
/// event gives it back. Packets wait in one queue per connection and are sent round-robin, so a
/// busy link cannot starve the others. Pure.
struct ACLFlowControl: Sendable {
    /// One ACL packet waiting, with the send operation it completes (on its frame's last packet).
    struct Queued: Hashable, Sendable {
        var packet: HCIACLPacket
        var completes: Int?
    }

    let capacity: Int
    private(set) var available: Int
    private var inFlight: [UInt16: Int] = [:]
    private var queues: [UInt16: [Queued]] = [:]
    /// Handles with packets waiting, in turn order.
    private var turn: [UInt16] = []

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        available = self.capacity
    }

    var queuedCount: Int { queues.values.reduce(0) { $0 + $1.count } }

    func inFlight(on handle: UInt16) -> Int { inFlight[handle] ?? 0 }

    /// Queues the packets of one frame on `handle`; the last completes `operation`.
    mutating func enqueue(_ packets: [HCIACLPacket], on handle: UInt16, completing operation: Int?) {
        guard !packets.isEmpty else { return }
        var entries = packets.map { Queued(packet: $0, completes: nil) }
        entries[entries.count - 1].completes = operation
        if queues[handle, default: []].isEmpty, !turn.contains(handle) { turn.append(handle) }
        queues[handle, default: []] += entries
    }

    /// The packets that may be sent now, one handle at a time in turn, while buffers are free.
    mutating func sendable() -> [Queued] {
        var out: [Queued] = []
        while available > 0, !turn.isEmpty {
            let handle = turn.removeFirst()
            guard var queue = queues[handle], !queue.isEmpty else { continue }
            out.append(queue.removeFirst())
            available -= 1
            inFlight[handle, default: 0] += 1
            queues[handle] = queue.isEmpty ? nil : queue
            if !queue.isEmpty { turn.append(handle) }
        }
        return out
    }

    /// Number Of Completed Packets for `handle`. A count above what is in flight (a confused
    /// controller, or a handle already disconnected) gives back no more than was taken.
    mutating func completed(_ count: Int, on handle: UInt16) {
        let taken = inFlight[handle] ?? 0
        let freed = min(max(0, count), taken)
        inFlight[handle] = taken - freed == 0 ? nil : taken - freed
        available = min(capacity, available + freed)
    }

    /// The connection is gone: its buffers count as completed (§4.3: the host considers every
    /// packet sent on a disconnected handle flushed) and its waiting packets are dropped.
    /// Returns the operations that will never complete.
    mutating func drop(_ handle: UInt16) -> [Int] {
        completed(inFlight[handle] ?? 0, on: handle)
        let dropped = queues.removeValue(forKey: handle) ?? []
        turn.removeAll { $0 == handle }
        return dropped.compactMap(\.completes)
    }
}
