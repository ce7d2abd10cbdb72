import Timing
import Foundation
import Synchronization
import Testing

@testable import MQTTLink

/// Integration tests: each starts a real /usr/sbin/mosquitto broker on 127.0.0.1 (TestBroker) and real MQTTClients over libmosquitto.
@Suite("MQTT client against a real mosquitto", .serialized, .timeLimit(.minutes(1)))
struct MQTTClientTests {
    /// A subscriber to `filter` (with a reader of its events) and a publisher, both connected.
    private func pair(
        _ broker: TestBroker, _ name: String, subscribedTo filter: String
    ) async throws -> (subscriber: MQTTClient, publisher: MQTTClient, events: EventReader) {
        let subscriber = try client(broker, "\(name)-sub")
        let publisher = try client(broker, "\(name)-pub")
        let events = EventReader(subscriber)
        try await subscriber.connect()
        try await publisher.connect()
        try await subscriber.subscribe(filter, qos: .atLeastOnce)
        return (subscriber, publisher, events)
    }

    @Test("messages round-trip at QoS 0 and QoS 1 with their QoS and payload")
    func roundTrip() async throws {
        let broker = try TestBroker()
        let (subscriber, publisher, reader) = try await pair(broker, "trip", subscribedTo: "smart/device/out/#")
        var events = reader

        try await publisher.publish(topic: "smart/device/out/a", payload: [0, 1, 2], qos: .atMostOnce)
        let first = await events.message(on: "smart/device/out/a")
        #expect(
            first
                == MQTTMessage(
                    topic: "smart/device/out/a", payload: [0, 1, 2], qos: .atMostOnce, retain: false))

        let large = [UInt8]((0..<4096).map { UInt8(truncatingIfNeeded: $0) })
        try await publisher.publish(topic: "smart/device/out/b", payload: large, qos: .atLeastOnce)
        let second = await events.message(on: "smart/device/out/b")
        #expect(
            second
                == MQTTMessage(
                    topic: "smart/device/out/b", payload: large, qos: .atLeastOnce, retain: false))

        await publisher.close()
        await subscriber.close()
        #expect(Self.networkThreads(broker) == 0)
    }

    @Test("a message bigger than the socket takes at once (8 MB) still leaves whole, and the next one after it")
    func messageBiggerThanTheSocketBuffer() async throws {
        let broker = try TestBroker()
        let (subscriber, publisher, reader) = try await pair(broker, "big", subscribedTo: "big/#")
        var events = reader
        var big = [UInt8](repeating: 0x5A, count: 8 << 20)
        for index in stride(from: 0, to: big.count, by: 4099) { big[index] = UInt8(truncatingIfNeeded: index) }
        // `send` returns without waiting: only the network thread can write what the socket
        // did not take inside the call.
        let receipt = await publisher.send(topic: "big/one", payload: big, qos: .atLeastOnce)
        let small = await publisher.send(topic: "big/two", payload: [7], qos: .atLeastOnce)
        let first = await events.message(on: "big/one")
        #expect(first?.payload.count == big.count)
        #expect(first?.payload == big)
        let second = await events.message(on: "big/two")
        #expect(second?.payload == [7])
        try await receipt.acknowledged()
        try await small.acknowledged()
        await publisher.close()
        await subscriber.close()
    }

    @Test("a QoS 1 publish completes only when the PUBACK arrives, QoS 0 once written")
    func publishWaitsForPuback() async throws {
        let broker = try TestBroker()
        let publisher = try client(broker, "puback")
        try await publisher.connect()
        broker.pause()
        let acknowledged = Mutex(false)
        let pending = Task {
            try await publisher.publish(topic: "t/qos1", payload: [1], qos: .atLeastOnce)
            acknowledged.withLock { $0 = true }
        }
        // Written after the QoS 1 packet on the same socket, so once this returns the QoS 1
        // packet is out too; the paused broker cannot have acknowledged it.
        try await publisher.publish(topic: "t/qos0", payload: [0], qos: .atMostOnce)
        #expect(acknowledged.withLock { $0 } == false)
        broker.resume()
        try await pending.value
        #expect(acknowledged.withLock { $0 })
        await publisher.close()
        #expect(Self.networkThreads(broker) == 0)
    }

    @Test("a retained message and the last will reach other clients after the socket dies")
    func retainedAndLastWill() async throws {
        let broker = try TestBroker()
        let gateway = try client(broker, "gateway") {
            $0.lastWill = .init(
                topic: "youll/bridge/state", payload: Array("offline".utf8), qos: .atLeastOnce, retain: true
            )
        }
        try await gateway.connect()
        try await gateway.publish(
            topic: "youll/bridge/state", payload: Array("online".utf8), qos: .atLeastOnce, retain: true)

        let watcher = try client(broker, "watcher")
        var watching = EventReader(watcher)
        try await watcher.connect()
        try await watcher.subscribe("youll/bridge/state")
        let retained = await watching.message(on: "youll/bridge/state")
        #expect(retained?.payload == Array("online".utf8))
        #expect(retained?.retain == true)

        await gateway.simulateNetworkFailure()
        let will = await watching.message(on: "youll/bridge/state")
        #expect(will?.payload == Array("offline".utf8))

        let late = try client(broker, "late")
        var lateEvents = EventReader(late)
        try await late.connect()
        try await late.subscribe("youll/bridge/state")
        let stored = await lateEvents.message(on: "youll/bridge/state")
        #expect(stored?.payload == Array("offline".utf8))
        #expect(stored?.retain == true)

        await gateway.close()
        await watcher.close()
        await late.close()
        #expect(Self.networkThreads(broker) == 0)
    }

    @Test("after the broker restarts the client reconnects and its subscriptions work again")
    func reconnectRestoresSubscriptions() async throws {
        let broker = try TestBroker()
        let gateway = try client(broker, "restore")
        var events = EventReader(gateway)
        try await gateway.connect()
        #expect(await events.connected())
        try await gateway.subscribe("smart/device/out/+")

        broker.stop()
        let reason = await events.disconnected()
        guard case .connectionLost = reason else {
            Issue.record("expected a lost connection, got \(String(describing: reason))")
            return
        }
        // Publishing at QoS 0 while disconnected is refused and not queued.
        await #expect(throws: MQTTError.notConnected) {
            try await gateway.publish(topic: "x", payload: [], qos: .atMostOnce)
        }
        try await broker.restart()
        await gateway.reconnectNow()
        #expect(await events.connected())

        let device = try client(broker, "device")
        try await device.connect()
        try await device.publish(topic: "smart/device/out/lamp", payload: [7], qos: .atLeastOnce)
        let message = await events.message(on: "smart/device/out/lamp")
        #expect(message?.payload == [7])
        await device.close()
        await gateway.close()
        #expect(Self.networkThreads(broker) == 0)
    }

    @Test("a QoS 1 publish made while the broker is down completes once, after the reconnect")
    func publishDuringOutage() async throws {
        let broker = try TestBroker()
        // A long backoff: only reconnectNow() brings the gateway back, after the listener is ready.
        let gateway = try client(broker, "outage") {
            $0.reconnect = Backoff(initial: .seconds(30), maximum: .seconds(30), jitter: 0.2)
        }
        let listener = try client(broker, "listener")
        var gatewayEvents = EventReader(gateway)
        var heard = EventReader(listener)
        try await gateway.connect()
        broker.stop()
        _ = await gatewayEvents.disconnected()
        let publish = Task {
            try await gateway.publish(topic: "smart/device/in/lamp", payload: [1], qos: .atLeastOnce)
        }
        // The broker restarts without persistence: the listener subscribes before the replay.
        try await broker.restart()
        try await listener.connect()
        try await listener.subscribe("smart/device/in/#")
        await gateway.reconnectNow()
        try await publish.value
        try await gateway.publish(topic: "smart/device/in/marker", payload: [2], qos: .atLeastOnce)
        var copies = 0
        while let event = await heard.next(where: { if case .message = $0 { true } else { false } }) {
            guard case .message(let message) = event else { continue }
            if message.topic == "smart/device/in/marker" { break }
            copies += 1
        }
        #expect(copies == 1)
        await gateway.close()
        await listener.close()
        #expect(Self.networkThreads(broker) == 0)
    }

    @Test("a wrong password is reported as not authorised, the right one connects")
    func wrongPassword() async throws {
        let broker = try TestBroker(credentials: .init(username: "gateway", password: "right-pass"))
        let wrong = try client(broker) {
            $0.username = "gateway"
            $0.password = "wrong-pass"
        }
        await #expect(throws: MQTTError.notAuthorised(username: "gateway")) {
            try await wrong.connect()
        }
        await wrong.close()
        let right = try client(broker) {
            $0.username = "gateway"
            $0.password = "right-pass"
        }
        try await right.connect()
        await right.close()
        #expect(Self.networkThreads(broker) == 0)
    }

    @Test("a port with nothing listening is reported as connection refused")
    func connectionRefused() async throws {
        let port = try TestBroker.freeLoopbackPort()
        let client = try MQTTClient(configuration: MQTTConfiguration(host: "127.0.0.1", port: port))
        do {
            try await client.connect()
            Issue.record("connected to a port with no broker")
        } catch let error as MQTTError {
            #expect(error == .connectionRefused(host: "127.0.0.1", port: port))
            #expect(error.description.contains("is mosquitto running on 127.0.0.1:\(port)?"))
        }
        await client.close()
        #expect(Self.networkThreads(port: port) == 0)
    }

    @Test("an unresolvable host is reported as host not found")
    func hostNotFound() async throws {
        let client = try MQTTClient(
            configuration: MQTTConfiguration(host: "no-such-broker.invalid", port: 1883))
        await #expect(throws: MQTTError.hostNotFound(host: "no-such-broker.invalid")) {
            try await client.connect()
        }
        await client.close()
        #expect(Self.networkThreads(port: 1883) == 0)
    }

    @Test("TLS connects with the broker's CA and fails verification with another CA")
    func tls() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "youll-tls-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificates = try TestCertificates(in: directory)
        let broker = try TestBroker(tls: certificates.broker)

        let trusted = try client(broker) { $0.tls = .init(caFile: certificates.broker.caFile) }
        var events = EventReader(trusted)
        try await trusted.connect()
        try await trusted.subscribe("secure/echo")
        try await trusted.publish(topic: "secure/echo", payload: [42])
        #expect(await events.message(on: "secure/echo")?.payload == [42])
        await trusted.close()

        let untrusting = try client(broker) { $0.tls = .init(caFile: certificates.wrongCAFile) }
        await #expect(throws: MQTTError.tlsFailed(host: "127.0.0.1", port: broker.port)) {
            try await untrusting.connect()
        }
        await untrusting.close()
        #expect(Self.networkThreads(broker) == 0)
    }

    @Test("an unreadable CA file is a configuration error before any connection")
    func missingCAFile() {
        #expect(throws: MQTTError.self) {
            _ = try MQTTClient(
                configuration: MQTTConfiguration(
                    host: "127.0.0.1", tls: .init(caFile: "/nonexistent/ca.crt")))
        }
    }

    @Test("close() disconnects, finishes events, ends the network thread and is idempotent")
    func closeCleansUp() async throws {
        let broker = try TestBroker()
        let gateway = try client(broker, "closer")
        var events = EventReader(gateway)
        try await gateway.connect()
        #expect(Self.networkThreads(broker) == 1)
        await gateway.close()
        await gateway.close()
        #expect(await events.disconnected() == .closedByClient)
        #expect(await events.finished())
        #expect(Self.networkThreads(broker) == 0)
        await #expect(throws: MQTTError.closed) { try await gateway.publish(topic: "t", payload: []) }
        await #expect(throws: MQTTError.closed) { try await gateway.connect() }
    }

    /// Network threads still running in this process (the suite is serialized, so only this
    /// test's clients count).
    /// Network threads still running for clients of this broker (other suites' clients
    /// talk to other ports).
    private static func networkThreads(_ broker: TestBroker) -> Int {
        networkThreads(port: broker.port)
    }

    private static func networkThreads(port: Int) -> Int {
        NetworkLoop.runningThreads(port: port)
    }
}
