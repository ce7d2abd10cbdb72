import Logging
import Synchronization
import MQTTLink

/// The bridge's one path to the broker: messages are published one after another, QoS 1,
/// in the order they were sent here. A publish that fails (not connected) is dropped: the
/// retained topics are republished in full after the next connection.
final class BridgeOutbox: Sendable {
    private enum Job: Sendable {
        case message(topic: String, payload: [UInt8], retain: Bool)
        case barrier(CheckedContinuation<Void, Never>)
    }

    private let client: MQTTClient
    private let logger: Logger
    private let jobs: AsyncStream<Job>
    private let continuation: AsyncStream<Job>.Continuation
    private let worker = WorkerSlot()

    init(client: MQTTClient, logger: Logger) {
        self.client = client
        self.logger = logger
        (jobs, continuation) = AsyncStream.makeStream(of: Job.self, bufferingPolicy: .unbounded)
    }

    func start() {
        let jobs = jobs
        let client = client
        let logger = logger
        worker.set(
            Task {
                for await job in jobs {
                    switch job {
                    case .message(let topic, let payload, let retain):
                        do {
                            try await client.publish(topic: topic, payload: payload, qos: .atLeastOnce, retain: retain)
                        } catch {
                            logger.debug("not published on \(topic): \(error)")
                        }
                    case .barrier(let waiter):
                        waiter.resume()
                    }
                }
            })
    }

    func send(topic: String, payload: [UInt8], retain: Bool) {
        continuation.yield(.message(topic: topic, payload: payload, retain: retain))
    }

    /// Returns once everything sent before it is published (or failed), or after `timeout`.
    func flush(timeout: Duration) async {
        let continuation = continuation
        _ = await finishes(within: timeout) {
            await withCheckedContinuation { waiter in
                if case .terminated = continuation.yield(.barrier(waiter)) { waiter.resume() }
            }
        }
    }

    /// Ends the worker; messages not yet published are dropped.
    func finish() async {
        continuation.finish()
        worker.cancel()
    }
}

/// Holds the worker task, set once after init.
private final class WorkerSlot: Sendable {
    private let task = Mutex<Task<Void, Never>?>(nil)

    func set(_ newTask: Task<Void, Never>) {
        task.withLock { $0 = newTask }
    }

    func cancel() {
        task.withLock { $0?.cancel() }
    }
}
