import Logging
import Synchronization
import MQTTLink
import Timing

/// The bridge's one path to the broker: messages are published one after another, at QoS 0
/// as zigbee2mqtt publishes them, in the order they were sent here. Each is handed to the
/// client as soon as it comes (libmosquitto keeps their order: with one QoS for all, none
/// waits behind a full QoS 1 in-flight window while a later one overtakes it), and up to
/// `window` may be waiting to be written at once.
///
/// Why not QoS 1: every confirmed command publishes two messages here (its answer and the
/// device's state), and their PUBACKs cost the broker two more packets and the gateway two
/// more reads and callbacks per command: about a tenth of the CPU a command costs the
/// daemon and the broker (`scripts/bench`'s serve-load). What QoS 1 would add is a resend
/// after the connection to the broker, on the same machine, drops with a message in
/// flight; but every retained topic is republished in full after each connection, so only
/// answers and events sent in that moment are lost (events are kept in the database's log
/// as well). A publish that fails (not connected) is dropped for the same reason.
final class BridgeOutbox: Sendable {
    private enum Job: Sendable {
        case message(topic: String, payload: [UInt8], retain: Bool)
        case barrier(CheckedContinuation<Void, Never>)
    }

    /// Messages handed to the client and not yet written, at most.
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
                // Handed over, not yet written, oldest first (from index `head` on).
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
                            topic: topic, payload: payload, qos: .atMostOnce, retain: retain)
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
