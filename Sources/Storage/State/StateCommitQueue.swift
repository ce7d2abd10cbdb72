import Foundation
import GRDB
import Synchronization
import TuyaCore

/// Group commits of devices' desired and confirmed states: every state queued while a
/// commit is under way goes into the next one, a single transaction (and a single sync)
/// for all of them. A caller that must know its state is on disk (an answer that says
/// "saved") waits for the commit holding it, and only for that one; one that need not (the
/// controller's desired state, sent off as commands change it) does not wait at all.
///
/// A confirmed state is read (from the source given with it) when its batch is written,
/// not when it was queued: a batch saves each device's latest values, at least as new as
/// those its callers answered with, and a device queued twice before its commit is written
/// once. A desired state is queued with its values; the last one queued wins.
final class StateCommitQueue: Sendable {
    typealias Source = @Sendable () async -> DataPoints?
    typealias Write =
        @Sendable (_ desired: [DeviceID: DataPoints], _ confirmed: [DeviceID: DataPoints]) async throws(StorageError) ->
        Void

    private struct State {
        var desired: [DeviceID: DataPoints] = [:]
        var confirmed: [DeviceID: Source] = [:]
        /// Desired states of a batch that failed, written again with the next batch (not on
        /// their own: a full disk would be retried in a loop). One per device at most.
        var retryDesired: [DeviceID: DataPoints] = [:]
        /// The number of the batch collecting now; batches commit in this order.
        var collecting = 1
        /// Every batch up to this one is committed (or failed).
        var finished = 0
        var writing = false
        /// Recent failed batches, for waiters that come after the fact.
        var failures: [Int: StorageError] = [:]
        var waiters: [(batch: Int, continuation: CheckedContinuation<StorageError?, Never>)] = []

        var isEmpty: Bool { desired.isEmpty && confirmed.isEmpty }
    }

    private static let failureMemory = 64

    private let write: Write
    private let state = Mutex(State())

    init(write: @escaping Write) {
        self.write = write
    }

    /// Queues a device's confirmed state, read from `source` when its batch is written.
    /// Returns the batch, to `wait` for.
    func queueConfirmed(_ id: DeviceID, source: @escaping Source) -> Int {
        enqueue { $0.confirmed[id] = source }
    }

    /// Queues a device's desired state. Returns the batch, to `wait` for.
    func queueDesired(_ desired: DataPoints, for id: DeviceID) -> Int {
        enqueue { $0.desired[id] = desired }
    }

    /// Waits until `batch` is committed; its error when it could not be.
    func wait(for batch: Int) async -> StorageError? {
        await withCheckedContinuation { continuation in
            let done: StorageError?? = state.withLock { state in
                guard batch > state.finished else { return .some(state.failures[batch]) }
                state.waiters.append((batch, continuation))
                return .none
            }
            if case .some(let failure) = done { continuation.resume(returning: failure) }
        }
    }

    /// Waits until everything queued so far is committed, trying once more the desired states
    /// of a failed batch (the daemon flushes as it stops).
    func flush() async {
        let retrying = state.withLock { !$0.retryDesired.isEmpty }
        if retrying {
            _ = enqueue { state in
                state.desired = state.retryDesired.merging(state.desired) { $1 }
                state.retryDesired = [:]
            }
        }
        let last = state.withLock { state in
            state.isEmpty ? (state.writing ? state.collecting - 1 : state.finished) : state.collecting
        }
        _ = await wait(for: last)
    }

    private func enqueue(_ add: (inout State) -> Void) -> Int {
        let (batch, start) = state.withLock { state -> (Int, Bool) in
            add(&state)
            let start = !state.writing
            state.writing = true
            return (state.collecting, start)
        }
        if start { Task { await self.writeBatches() } }
        return batch
    }

    /// Writes batch after batch until nothing is queued.
    private func writeBatches() async {
        while true {
            let next = state.withLock {
                state -> (batch: Int, desired: [DeviceID: DataPoints], confirmed: [DeviceID: Source])? in
                guard !state.isEmpty else {
                    state.writing = false
                    return nil
                }
                defer {
                    state.desired = [:]
                    state.retryDesired = [:]
                    state.confirmed = [:]
                    state.collecting += 1
                }
                // A retried state yields to a newer one queued for the same device.
                return (state.collecting, state.retryDesired.merging(state.desired) { $1 }, state.confirmed)
            }
            guard let next else { return }
            var confirmed: [DeviceID: DataPoints] = [:]
            for (id, source) in next.confirmed {
                if let values = await source(), !values.isEmpty { confirmed[id] = values }
            }
            var failure: StorageError?
            if !confirmed.isEmpty || !next.desired.isEmpty {
                do throws(StorageError) {
                    try await write(next.desired, confirmed)
                } catch {
                    failure = error
                }
            }
            let released = state.withLock { state in
                state.finished = next.batch
                if let failure {
                    // Nobody waits for most desired states (the controller queues and goes
                    // on), so a failure would lose them silently: they go again next time.
                    for (id, desired) in next.desired where state.desired[id] == nil {
                        state.retryDesired[id] = desired
                    }
                    state.failures[next.batch] = failure
                    if state.failures.count > Self.failureMemory, let oldest = state.failures.keys.min() {
                        state.failures[oldest] = nil
                    }
                }
                let ready = state.waiters.filter { $0.batch <= next.batch }
                state.waiters.removeAll { $0.batch <= next.batch }
                return ready.map { ($0.continuation, state.failures[$0.batch]) }
            }
            for (continuation, failure) in released { continuation.resume(returning: failure) }
        }
    }
}

extension GatewayDatabase {
    /// Queues the device's confirmed state for the next group commit, read from `source`
    /// when that commit is written; returns the commit to pass to `waitForCommit`.
    public func queueConfirmed(for id: DeviceID, source: @escaping @Sendable () async -> DataPoints?) -> Int {
        commits.queueConfirmed(id, source: source)
    }

    /// Queues the device's desired state for the next group commit (the last one queued
    /// before it wins); returns the commit to pass to `waitForCommit`.
    @discardableResult
    public func queueDesired(_ desired: DataPoints, for id: DeviceID) -> Int {
        commits.queueDesired(desired, for: id)
    }

    /// Waits until the group commit `commit` is written and synced; its error when it failed.
    public func waitForCommit(_ commit: Int) async -> StorageError? {
        await commits.wait(for: commit)
    }

    /// Waits until every state queued so far is written (before `close`).
    public func flushQueuedStates() async {
        await commits.flush()
    }

    /// One group commit: desired and confirmed states of many devices in one transaction.
    /// A device that is no longer paired (removed meanwhile) is skipped.
    static func saveStates(
        pool: DatabasePool, path: String, desired: [DeviceID: DataPoints], confirmed: [DeviceID: DataPoints]
    ) async throws(StorageError) {
        let rows =
            desired.map { ($0.key, "desired", StoredDataPoints.encode($0.value)) }
            + confirmed.map { ($0.key, "confirmed", StoredDataPoints.encode($0.value)) }
        // Once for the batch, and not through GRDB's `DateFormatter` (`StoredDate`).
        let now = StoredDate.text(Date())
        do {
            try await pool.write { db in
                for (id, column, json) in rows {
                    // One statement per row: the row is written only while the device is
                    // paired (`FROM devices WHERE id = ?`); `column` is one of the two
                    // literals above, never input.
                    let statement = try db.cachedStatement(
                        sql: """
                            INSERT INTO device_state (device_id, \(column), \(column)_at)
                            SELECT id, ?, ? FROM devices WHERE id = ?
                            ON CONFLICT(device_id) DO UPDATE SET \(column) = excluded.\(column), \(column)_at = excluded.\(column)_at
                            """)
                    try statement.execute(arguments: [json, now, id.rawValue])
                }
            }
        } catch {
            throw Self.mapped(error, path: path, operation: "saving the state of \(rows.count) devices")
        }
    }
}
