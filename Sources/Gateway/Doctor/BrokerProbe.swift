import Foundation
import MQTTLink
import Synchronization
import Timing

/// Connects to the gateway's broker once, as the daemon would, and reports what it saw.
///
/// The probe uses the gateway's address, credentials and TLS files but not its client id:
/// a second client with the daemon's id would kick the running daemon off the broker. It
/// lets libmosquitto pick a random id, which also means a clean session, so the broker keeps
/// nothing from a doctor run (a fixed id such as `youll-doctor-<pid>` would ask MQTTLink for
/// a persistent session, which mosquitto keeps until it expires).
///
/// Order matters for `bridgeState`: `<base>/bridge/state` is subscribed first, then the echo
/// topic, then the echo is published. The broker queues the retained state right after its
/// SUBACK, so once the echo comes back any retained state has already arrived; the probe never
/// waits on a guess for "nothing retained".
public struct BrokerProbe: Sendable {
    public var configuration: MQTTConfiguration
    public var baseTopic: String
    /// For the connect and for the echo each.
    public var timeout: Duration
    /// Times the wait for the echo. The connect is bounded on real time instead, as MQTTLink's
    /// own CONNACK deadline runs on its network thread's real clock.
    public var clock: any Clock<Duration>

    public init(
        gateway: GatewayConfiguration, timeout: Duration = .seconds(5), clock: any Clock<Duration> = ContinuousClock()
    ) {
        var configuration = gateway.mqttLinkConfiguration()
        configuration.clientID = nil
        configuration.connectTimeout = timeout
        self.configuration = configuration
        baseTopic = gateway.baseTopic
        self.timeout = timeout
        self.clock = clock
    }

    public func observe() async -> BrokerObservation {
        let client: MQTTClient
        do {
            client = try MQTTClient(configuration: configuration)
        } catch {
            return BrokerObservation(connection: .failed(error))
        }
        let inbox = Inbox(stateTopic: baseTopic + "/bridge/state")
        let connected = await firstOf(timeout, on: ContinuousClock()) { try await client.connect() }
        switch connected {
        case nil:
            // The network thread may be stuck in a TCP connect; do not wait for it to close.
            Task { await client.close() }
            return BrokerObservation(connection: .noAnswer(timeout))
        case .failure(let error):
            await client.close()
            return BrokerObservation(connection: .failed(Self.mqttError(error)))
        case .success:
            break
        }
        let reader = Task { await inbox.read(client.events) }
        let stateSubscribed = await firstOf(timeout, on: ContinuousClock()) {
            try await client.subscribe(inbox.stateTopic)
        }
        let echoTopic = baseTopic + "/bridge/doctor/" + UUID().uuidString.lowercased()
        let token = Array(UUID().uuidString.utf8)
        inbox.expectEcho(topic: echoTopic, payload: token)
        let echoed = await firstOf(timeout, on: clock) {
            try await client.subscribe(echoTopic)
            try await client.publish(topic: echoTopic, payload: token)
            await inbox.echoArrived()
        }
        inbox.stopWaiting()
        await client.close()
        reader.cancel()

        var observation = BrokerObservation(connection: .connected)
        switch echoed {
        case nil: observation.roundTrip = .noEcho(timeout)
        case .success: observation.roundTrip = .passed
        case .failure(let error): observation.roundTrip = .failed(Self.mqttError(error))
        }
        switch stateSubscribed {
        case nil:
            observation.bridgeState = .unreadable(.timedOut("no SUBACK for \(inbox.stateTopic) within \(timeout)"))
        case .failure(let error):
            observation.bridgeState = .unreadable(Self.mqttError(error))
        case .success:
            observation.bridgeState = inbox.bridgeState.map { .retained($0) } ?? .nothingRetained
        }
        return observation
    }

    private static func mqttError(_ error: any Error) -> MQTTError {
        error as? MQTTError ?? .connectionLost("\(error)")
    }

    /// The result of `operation`, or nil when `limit` passes first. Unlike a task group this
    /// does not wait for `operation` to end: MQTTClient's connect does not end on cancellation.
    func firstOf<T: Sendable>(
        _ limit: Duration, on clock: any Clock<Duration>, _ operation: @escaping @Sendable () async throws -> T
    ) async -> Result<T, any Error>? {
        let outcome = Once<Result<T, any Error>?>()
        return await withCheckedContinuation { continuation in
            outcome.set(continuation)
            let timer = Task {
                // Cancelled: the operation finished first.
                guard (try? await clock.sleep(for: limit)) != nil else { return }
                outcome.finish(nil)
            }
            Task {
                do {
                    outcome.finish(.success(try await operation()))
                } catch {
                    outcome.finish(.failure(error))
                }
                timer.cancel()
            }
        }
    }
}

/// Resumes one continuation with the first value given; later values are dropped.
private final class Once<Value: Sendable>: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<Value, Never>?, done: Bool)>((nil, false))

    func set(_ continuation: CheckedContinuation<Value, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    func finish(_ value: Value) {
        let continuation = state.withLock { state -> CheckedContinuation<Value, Never>? in
            guard !state.done else { return nil }
            state.done = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: value)
    }
}

/// The probe's view of `MQTTClient.events`: the retained bridge state, and whether the echo came.
private final class Inbox: Sendable {
    let stateTopic: String
    private struct State {
        var bridgeState: [UInt8]?
        var echo: (topic: String, payload: [UInt8])?
        var echoed = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    init(stateTopic: String) {
        self.stateTopic = stateTopic
    }

    var bridgeState: [UInt8]? { state.withLock { $0.bridgeState } }

    func expectEcho(topic: String, payload: [UInt8]) {
        state.withLock { $0.echo = (topic, payload) }
    }

    /// Returns when the echo has arrived or `stopWaiting()` was called.
    func echoArrived() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.echoed { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Lets every `echoArrived()` return, so no continuation is left behind after a timeout.
    func stopWaiting() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.echoed = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func read(_ events: Mailbox<MQTTEvent>) async {
        for await event in events {
            guard case .message(let message) = event else { continue }
            let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                if message.topic == stateTopic { state.bridgeState = message.payload }
                guard let echo = state.echo, message.topic == echo.topic, message.payload == echo.payload else {
                    return []
                }
                state.echoed = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }
}
