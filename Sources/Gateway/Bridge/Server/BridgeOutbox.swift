import Logging
import Synchronization
import MQTTLink
import Timing

/// The bridge's one path to the broker: messages are published one after another, QoS 1,
/// in the order they were sent here. Each is handed to the client as soon as it comes
/// (libmosquitto keeps their order) and up to `window` wait for their PUBACK at once, so
/// a burst of answers does not wait one broker round trip per message. A publish that
/// fails (not connected) is dropped: the retained topics are republished in full after
/// the next connection.
final class BridgeOutbox: Sendable {
    private enum Job: Sendable {
        case message(topic: String, payload: [UInt8], retain: Bool)
        case barrier(CheckedContinuation<Void, Never>)
    }

    /// Messages handed to the client and not yet acknowledged, at most.
    static let window = 256

    private let client: MQTTClient
    private let logger: Logger
    private let jobs: Mailbox<Job>
    private let continuation: Mailbox<Job>.Continuation
    private let worker = WorkerSlot()

    init(client: MQTTClient, logger: Logger) {
        self.client = client
        self.logger = logger
        (jobs, continuation) = Mailbox.make(of: Job.self)
    }

    func start() {
        let jobs = jobs
        let client = client
        let logger = logger
        worker.set(
            Task {
                // Handed over, not yet acknowledged, oldest first (from index `head` on).
                var inFlight: [(topic: String, receipt: PublishReceipt)] = []
                var head = 0
                func settleOldest() async {
                    let sent = inFlight[head]
                    head += 1
                    if head == inFlight.count || head >= 1024 {
                        inFlight.removeFirst(head)
                        head = 0
                    }
                    do {
                        try await sent.receipt.acknowledged()
                    } catch {
                        logger.debug("not published on \(sent.topic): \(error)")
                    }
                }
                for await job in jobs {
                    switch job {
                    case .message(let topic, let payload, let retain):
                        let receipt = await client.send(
                            topic: topic, payload: payload, qos: .atLeastOnce, retain: retain)
                        inFlight.append((topic, receipt))
                        while head < inFlight.count,
                            inFlight[head].receipt.isDone || inFlight.count - head > Self.window
                        {
                            await settleOldest()
                        }
                    case .barrier(let waiter):
                        while head < inFlight.count { await settleOldest() }
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
                if !continuation.yield(.barrier(waiter)) { waiter.resume() }
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
