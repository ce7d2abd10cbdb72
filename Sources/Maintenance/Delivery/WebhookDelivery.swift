import Timing
import Foundation

/// Delivers alerts to an HTTP webhook: each alert is POSTed as JSON (`MaintenanceAlert.jsonData()`)
/// from a durable `AlertOutbox`, oldest first. A failure (no response, or a status outside
/// 200–299) keeps the alert at the head of the queue and waits `Backoff` on the
/// injected clock before trying again, so alerts arrive in order and none is lost while
/// the receiver is down. A 4xx is retried too: the usual cause is a receiver being set up,
/// and dropping the alert would lose it.
///
/// Exactly once as far as the outbox can tell: an alert is marked delivered after a 2xx.
/// If the gateway dies between the 2xx and the mark, the alert is sent again after the
/// restart with the same `id`, which receivers can use to drop the repeat.
public actor WebhookDelivery: AlertSink {
    public let endpoint: URL
    private let poster: any HTTPPoster
    private let outbox: any AlertOutbox
    private let clock: any Clock<Duration>
    private let backoff: Backoff
    private let headers: [String: String]
    /// Told of every failed attempt once it is recorded in the outbox: the alert's id, its
    /// failed attempts so far, and `HTTP <status>` or `no response` (never the URL).
    private let onFailure: @Sendable (_ alertID: String, _ attempts: Int, _ reason: String) async -> Void
    private var workSignalled = false
    private var waiter: CheckedContinuation<Void, Never>?

    /// How many alerts to read from the outbox at a time.
    static let batchSize = 32

    public init(
        endpoint: URL, poster: any HTTPPoster, outbox: any AlertOutbox, clock: any Clock<Duration>,
        backoff: Backoff = .delivery, headers: [String: String] = [:],
        onFailure: @escaping @Sendable (_ alertID: String, _ attempts: Int, _ reason: String) async -> Void = {
            _, _, _ in
        }
    ) {
        self.onFailure = onFailure
        self.endpoint = endpoint
        self.poster = poster
        self.outbox = outbox
        self.clock = clock
        self.backoff = backoff
        var all = headers
        all["Content-Type"] = "application/json"
        self.headers = all
    }

    /// Queues the alert in the outbox and wakes `run()`.
    public func deliver(_ alert: MaintenanceAlert) async throws {
        try await outbox.enqueue(alert)
        signal()
    }

    /// Sends whatever the outbox holds, then waits for more, until the task is cancelled.
    /// Run it once, in the gateway's service group; alerts queued before a restart are sent
    /// when it starts.
    public func run() async {
        var storeFailures = 0
        while !Task.isCancelled {
            workSignalled = false
            let batch: [OutboxEntry]
            do {
                batch = try await outbox.pending(limit: Self.batchSize)
                storeFailures = 0
            } catch {
                storeFailures += 1
                guard await pause(backoff.delay(retry: storeFailures - 1)) else { return }
                continue
            }
            if batch.isEmpty {
                await waitForWork()
                continue
            }
            for entry in batch {
                if let reason = await send(entry.alert) {
                    let attempts =
                        (try? await outbox.recordFailedAttempt(entry.alert.id, reason: reason))
                        ?? entry.attempts + 1
                    // The reason may quote the URL (its query can hold a token): only the kind leaves.
                    await onFailure(entry.alert.id, attempts, reason.hasPrefix("HTTP ") ? reason : "no response")
                    guard await pause(backoff.delay(retry: attempts - 1)) else { return }
                    break
                }
                try? await outbox.markDelivered(entry.alert.id)
            }
        }
    }

    /// Nil when the receiver accepted the alert, else why not.
    private func send(_ alert: MaintenanceAlert) async -> String? {
        let body: Data
        do { body = try alert.jsonData() } catch { return "could not encode the alert: \(error)" }
        do {
            let status = try await poster.post(body, to: endpoint, headers: headers)
            return (200...299).contains(status) ? nil : "HTTP \(status)"
        } catch {
            return "no response: \(error)"
        }
    }

    /// Sleeps on the injected clock; false when cancelled.
    private func pause(_ delay: Duration) async -> Bool {
        do {
            try await clock.sleep(for: delay)
            return true
        } catch {
            return false
        }
    }

    private func signal() {
        workSignalled = true
        waiter?.resume()
        waiter = nil
    }

    private func waitForWork() async {
        guard !workSignalled else { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if workSignalled || Task.isCancelled {
                    continuation.resume()
                } else {
                    waiter = continuation
                }
            }
        } onCancel: {
            Task { await self.signal() }
        }
    }
}
