import Foundation
import MQTTLink
import Synchronization

/// The `serve-load` suite's callers of the bridge API: closed-loop clients that publish
/// `<base>/<name>/set` with a `transaction` and wait for its answer on
/// `<base>/bridge/response/device/set`. A few publishing connections (libmosquitto runs a
/// thread per connection, so one per client would swamp a small machine) and one
/// subscriber that hands each answer to the request waiting for its transaction.
final class BridgeLoadClient: Sendable {
    /// How one request ended.
    enum Outcome: Sendable {
        case confirmed
        case failed(String)
        case timedOut
    }

    private struct Waiting {
        var continuation: CheckedContinuation<Outcome, Never>
        var deadline: ContinuousClock.Instant
    }

    private let subscriber: MQTTClient
    private let publishers: [MQTTClient]
    private let waiting = Mutex<[String: Waiting]>([:])
    private let tasks = Mutex<[Task<Void, Never>]>([])
    let responseTopic: String
    /// An answer that does not come within this long counts as timed out.
    let timeout: Duration

    init(url: String, baseTopic: String, publishers count: Int = 4, timeout: Duration = .seconds(10)) async throws {
        responseTopic = "\(baseTopic)/bridge/response/device/set"
        self.timeout = timeout
        func client(_ role: String) throws -> MQTTClient {
            var configuration = try MQTTConfiguration(url: url)
            configuration.clientID = "youll-bench-load-\(role)-\(UUID().uuidString.prefix(8))"
            return try MQTTClient(configuration: configuration)
        }
        subscriber = try client("answers")
        publishers = try (0..<max(1, count)).map { try client("set\($0)") }
        let events = subscriber.events
        let pump = Task { [weak self] in
            for await event in events {
                guard case .message(let message) = event else { continue }
                self?.answered(message.payload)
            }
        }
        let sweeper = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(100))
                self?.expire(now: .now)
            }
        }
        tasks.withLock { $0 = [pump, sweeper] }
        try await subscriber.connect()
        try await subscriber.subscribe(responseTopic, qos: .atMostOnce)
        for publisher in publishers { try await publisher.connect() }
    }

    /// Publishes `payload` (which must carry `"transaction":"<transaction>"`) on `topic`
    /// through publisher `lane` and waits for the answer.
    func request(_ topic: String, _ payload: [UInt8], transaction: String, lane: Int) async -> Outcome {
        let deadline = ContinuousClock.now + timeout
        let publisher = publishers[lane % publishers.count]
        return await withCheckedContinuation { continuation in
            waiting.withLock { $0[transaction] = Waiting(continuation: continuation, deadline: deadline) }
            Task {
                do {
                    try await publisher.publish(topic: topic, payload: payload, qos: .atMostOnce)
                } catch {
                    self.finish(transaction, .failed("not published: \(error)"))
                }
            }
        }
    }

    func close() async {
        for task in tasks.withLock({ $0 }) { task.cancel() }
        let left = waiting.withLock { waiting in
            defer { waiting = [:] }
            return Array(waiting.values)
        }
        for entry in left { entry.continuation.resume(returning: .timedOut) }
        await subscriber.close()
        for publisher in publishers { await publisher.close() }
    }

    private func answered(_ payload: [UInt8]) {
        guard let transaction = Self.stringField("transaction", in: payload) else { return }
        let status = Self.stringField("status", in: payload)
        finish(transaction, status == "ok" ? .confirmed : .failed(Self.stringField("error", in: payload) ?? "error"))
    }

    private func finish(_ transaction: String, _ outcome: Outcome) {
        let entry = waiting.withLock { $0.removeValue(forKey: transaction) }
        entry?.continuation.resume(returning: outcome)
    }

    private func expire(now: ContinuousClock.Instant) {
        let expired = waiting.withLock { waiting in
            let keys = waiting.filter { $0.value.deadline < now }.map(\.key)
            return keys.compactMap { waiting.removeValue(forKey: $0) }
        }
        for entry in expired { entry.continuation.resume(returning: .timedOut) }
    }

    /// The value of a top-level `"name":"value"` string field of compact JSON, found by
    /// scanning (the answers are the daemon's compact JSON; a full parse would cost this
    /// process CPU the daemon is competing for). Nil when absent or not a plain string.
    static func stringField(_ name: String, in payload: [UInt8]) -> String? {
        let key = Array("\"\(name)\":\"".utf8)
        guard payload.count > key.count else { return nil }
        var index = 0
        while index + key.count <= payload.count {
            if payload[index] == key[0], payload[index..<index + key.count].elementsEqual(key) {
                let start = index + key.count
                guard let end = payload[start...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
                return String(decoding: payload[start..<end], as: UTF8.self)
            }
            index += 1
        }
        return nil
    }
}

/// What one concurrency level measured.
struct LoadLevel: Sendable {
    var concurrency: Int
    var wall: Double
    var confirmed: Int
    var failed: Int
    var timedOut: Int
    /// Latencies of the confirmed requests, in ms, sorted.
    var latencies: [Double]
    var firstFailure: String?
    /// Times a client waited for the frame gap before sending to a device again.
    var gapWaits: Int

    var rate: Double { wall > 0 ? Double(confirmed) / wall : 0 }
    func percentile(_ p: Int) -> Double {
        latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, latencies.count * p / 100)]
    }
}

/// One closed-loop client's own slice of the devices, round-robin, each device alternating
/// between two values so every command changes its state.
struct LoadClientPlan: Sendable {
    struct Target: Sendable {
        var name: String
        var field: String
    }

    let index: Int
    let targets: [Target]

    /// Runs until `deadline`: one request at a time, never to a device sooner than the frame
    /// gap after the answer to the last one (the gateway would wait out the gap; this measures
    /// the daemon). Counted from the answer, not from the request: the gateway counts the gap
    /// from when it wrote the frame, which is after the request and before the answer. Counted
    /// from the request, one slow answer made the next command to that device wait out the
    /// rest of the gap in the gateway, and the next, each about the 2 ms margin less: the p99
    /// of 27-98 ms the notes reported, depending on how the warm-up ended.
    func run(
        _ client: BridgeLoadClient, baseTopic: String, deadline: ContinuousClock.Instant, sequence start: Int
    ) async -> LoadLevel {
        var level = LoadLevel(
            concurrency: 1, wall: 0, confirmed: 0, failed: 0, timedOut: 0, latencies: [], gapWaits: 0)
        var lastAnswered = [ContinuousClock.Instant?](repeating: nil, count: targets.count)
        var counts = [Int](repeating: start, count: targets.count)
        var position = 0
        var sequence = 0
        while ContinuousClock.now < deadline {
            let slot = position % targets.count
            position += 1
            if let last = lastAnswered[slot] {
                let release = last + MQTTBenchmarks.frameGap + MQTTBenchmarks.gapMargin
                if ContinuousClock.now < release {
                    level.gapWaits += 1
                    try? await Task.sleep(until: release, clock: .continuous)
                    guard ContinuousClock.now < deadline else { break }
                }
            }
            let target = targets[slot]
            let value = MQTTBenchmarks.values[counts[slot] % 2]
            counts[slot] += 1
            sequence += 1
            let transaction = "c\(index)-\(start)-\(sequence)"
            let payload = Array(#"{"\#(target.field)":\#(value),"transaction":"\#(transaction)"}"#.utf8)
            let sent = ContinuousClock.now
            let outcome = await client.request(
                "\(baseTopic)/\(target.name)/set", payload, transaction: transaction, lane: index)
            let ended = ContinuousClock.now
            lastAnswered[slot] = ended
            // Only what was answered within the window counts toward the rate.
            guard ended <= deadline else { break }
            switch outcome {
            case .confirmed:
                level.confirmed += 1
                level.latencies.append(MQTTBenchmarks.milliseconds(ended - sent))
            case .failed(let message):
                level.failed += 1
                if level.firstFailure == nil { level.firstFailure = message }
            case .timedOut:
                level.timedOut += 1
            }
        }
        return level
    }

    /// `clients` plans over `names` (with the field each device's brightness is set by):
    /// client i gets devices i, i + clients, i + 2·clients, …
    static func plans(clients: Int, devices: [Target]) -> [LoadClientPlan] {
        (0..<clients).map { client in
            LoadClientPlan(
                index: client, targets: stride(from: client, to: devices.count, by: clients).map { devices[$0] })
        }
    }
}
