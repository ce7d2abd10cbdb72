import TuyaCore

/// The connection slots of one BLE adapter, shared by every BLE device link on it: a
/// thin actor around `ConnectionSlots` that parks a link until its turn comes.
public actor BLEConnectionSlots {
    private var slots: ConnectionSlots<DeviceID>
    /// Connections allowed at once.
    public nonisolated let limit: Int
    private var waiters: [DeviceID: CheckedContinuation<Void, any Error>] = [:]
    /// Callers of `waitUntilQueued`, by device.
    private var queueWatchers: [DeviceID: [CheckedContinuation<Void, any Error>]] = [:]

    /// `limit` simultaneous connections (default 3, at least 1).
    public init(limit: Int = 3) {
        slots = ConnectionSlots(limit: limit)
        self.limit = max(1, limit)
    }

    /// Devices holding a slot now.
    public var connected: Set<DeviceID> { slots.holders }
    /// Devices waiting, oldest first.
    public var queued: [DeviceID] { slots.waiting }

    /// Returns when `id` holds a slot. Throws `CancellationError` when the waiting task
    /// is cancelled; it then leaves the queue.
    public func acquire(_ id: DeviceID) async throws {
        if slots.request(id) { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled || slots.holders.contains(id) {
                    if Task.isCancelled { release(id) }
                    continuation.resume(with: Task.isCancelled ? .failure(CancellationError()) : .success(()))
                    return
                }
                waiters[id]?.resume(throwing: CancellationError())
                waiters[id] = continuation
                for watcher in queueWatchers.removeValue(forKey: id) ?? [] { watcher.resume() }
            }
        } onCancel: {
            Task { await self.cancelWait(id) }
        }
    }

    /// Gives the slot back (or leaves the queue); the next waiting device connects.
    public func release(_ id: DeviceID) {
        for next in slots.release(id) {
            waiters.removeValue(forKey: next)?.resume()
        }
    }

    /// Returns once `id` waits in the queue for a slot (at once if it does now), so a caller
    /// can wait for a link's turn to be taken instead of polling `queued`.
    public func waitUntilQueued(_ id: DeviceID) async throws {
        guard !slots.waiting.contains(id) else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                guard !Task.isCancelled else { return continuation.resume(throwing: CancellationError()) }
                queueWatchers[id, default: []].append(continuation)
            }
        } onCancel: {
            Task { await self.cancelQueueWatch(id) }
        }
    }

    private func cancelQueueWatch(_ id: DeviceID) {
        for watcher in queueWatchers.removeValue(forKey: id) ?? [] { watcher.resume(throwing: CancellationError()) }
    }

    private func cancelWait(_ id: DeviceID) {
        guard let waiter = waiters.removeValue(forKey: id) else { return }
        release(id)
        waiter.resume(throwing: CancellationError())
    }
}
