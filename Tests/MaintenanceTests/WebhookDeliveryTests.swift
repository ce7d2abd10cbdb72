import Timing
import Foundation
import Synchronization
import Testing
import TuyaCore
import YoullTestSupport

@testable import Maintenance

/// A receiver that is down (every POST throws, as a refused connection does) or up (202),
/// and reports each accepted alert id on `accepted`.
final class SwitchableReceiver: HTTPPoster {
    private struct State {
        var up = false
        var attempts = 0
        var received: [String] = []
        var contentTypes: Set<String> = []
    }

    private let state = Mutex(State())
    let accepted: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation

    init() {
        (accepted, continuation) = AsyncStream.makeStream(of: String.self)
    }

    var attempts: Int { state.withLock { $0.attempts } }
    var received: [String] { state.withLock { $0.received } }
    var contentTypes: Set<String> { state.withLock { $0.contentTypes } }
    func setUp(_ up: Bool) { state.withLock { $0.up = up } }

    func post(_ body: Data, to url: URL, headers: [String: String]) async throws -> Int {
        let alert = try MaintenanceAlert(jsonData: body)
        let up = state.withLock { state in
            state.attempts += 1
            state.contentTypes.insert(headers["Content-Type"] ?? "")
            if state.up { state.received.append(alert.id) }
            return state.up
        }
        guard up else { throw URLError(.cannotConnectToHost) }
        continuation.yield(alert.id)
        return 202
    }
}

@Suite("Webhook delivery")
struct WebhookDeliveryTests {
    static func alert(_ number: Int) -> MaintenanceAlert {
        MaintenanceAlert(
            id: "desk-diffuser:refill:due:\(number)", device: Fixtures.diffuser, type: "refill", state: .due,
            title: "Refill the water tank", body: "The tank is empty.",
            deeplink: "youll://tuya/maintenance?type=refill&device=desk-diffuser",
            at: Date(timeIntervalSince1970: 1_800_000_000 + Double(number)))
    }

    @Test(
        "while the receiver is down the head alert is retried with capped exponential backoff, then all arrive in order exactly once"
    )
    func retriesThenDeliversInOrder() async throws {
        let clock = ManualClock()
        let outbox = InMemoryAlertOutbox()
        let receiver = SwitchableReceiver()
        let delivery = WebhookDelivery(
            endpoint: URL(string: "http://127.0.0.1:9/alerts")!, poster: receiver, outbox: outbox, clock: clock,
            backoff: Backoff(initial: .seconds(1), maximum: .seconds(4)))
        for number in 1...3 { try await delivery.deliver(Self.alert(number)) }
        let runner = Task { await delivery.run() }

        // Waits 1, 2, 4, 4 s after the first four failures.
        await clock.waitForSleepers(1)
        #expect(receiver.attempts == 1)
        for (index, wait) in [1, 2, 4, 4].enumerated() {
            clock.advance(by: .seconds(wait) - .milliseconds(1))
            #expect(receiver.attempts == index + 1, "retried before the backoff of \(wait) s had passed")
            clock.advance(by: .milliseconds(1))
            await clock.waitForSleepers(1)
            #expect(receiver.attempts == index + 2)
        }
        #expect(await outbox.pending(limit: 10).map(\.attempts) == [5, 0, 0])
        #expect(await outbox.pending(limit: 10).first?.lastError?.hasPrefix("no response") == true)

        receiver.setUp(true)
        clock.advance(by: .seconds(4))
        var arrivals = receiver.accepted.makeAsyncIterator()
        for _ in 1...3 { _ = await arrivals.next() }
        #expect(receiver.received == (1...3).map { Self.alert($0).id })
        #expect(await outbox.deliveredIDs == receiver.received)
        #expect(await outbox.pending(limit: 10).isEmpty)

        // Idle: a new alert wakes the loop; an alert queued again is not sent again.
        try await delivery.deliver(Self.alert(2))
        try await delivery.deliver(Self.alert(4))
        _ = await arrivals.next()
        #expect(receiver.received == (1...4).map { Self.alert($0).id })
        #expect(receiver.contentTypes == ["application/json"])
        runner.cancel()
        await runner.value
    }

    @Test("alerts queued before a restart are sent by the next delivery loop")
    func outboxSurvivesTheLoop() async throws {
        let clock = ManualClock()
        let outbox = InMemoryAlertOutbox()
        let receiver = SwitchableReceiver()
        let first = WebhookDelivery(
            endpoint: URL(string: "http://127.0.0.1:9/alerts")!, poster: receiver, outbox: outbox, clock: clock)
        try await first.deliver(Self.alert(1))
        let firstRunner = Task { await first.run() }
        await clock.waitForSleepers(1)
        firstRunner.cancel()
        await firstRunner.value

        receiver.setUp(true)
        let second = WebhookDelivery(
            endpoint: URL(string: "http://127.0.0.1:9/alerts")!, poster: receiver, outbox: outbox, clock: clock)
        let secondRunner = Task { await second.run() }
        var arrivals = receiver.accepted.makeAsyncIterator()
        #expect(await arrivals.next() == Self.alert(1).id)
        secondRunner.cancel()
        await secondRunner.value
    }

    @Test("backoff doubles from the initial delay and stops at the cap")
    func backoffSchedule() {
        let backoff = Backoff(initial: .seconds(1), maximum: .seconds(300))
        #expect(
            (0...10).map { backoff.delay(retry: $0) }
                == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300].map { Duration.seconds($0) })
        #expect(backoff.delay(retry: Int.max) == .seconds(300))
        #expect(backoff.delay(retry: -1) == .seconds(1))
    }
}
