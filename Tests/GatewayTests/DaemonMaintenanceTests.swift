import DeviceSimulator
import Foundation
import Gateway
import LocalBroker
import Maintenance
import Storage
import Testing
import TuyaCore
import YoullTestSupport

/// Maintenance through the whole daemon: a real mosquitto on a free port, a simulated MQTT
/// diffuser whose tank runs dry in 300 ms of mist, a real SQLite state directory, the bridge
/// API through the real `BridgeClient`, and a small HTTP receiver on a loopback port as the
/// webhook (POSIX sockets, `WebhookReceiver`).
@Suite("Maintenance alerts through the daemon", .serialized, .timeLimit(.minutes(3)))
struct DaemonMaintenanceTests {
    static let timeout = Duration.seconds(20)
    static let token = "Bearer s3cret-webhook-token"

    /// The daemon on `broker` with its state in `state`, its webhook at `webhook` (none when nil).
    static func withDaemon<T>(
        _ broker: LocalBroker, state: URL, webhook: String?, _ body: (RunningDaemon) async throws -> T
    ) async throws -> T {
        try await withRunningDaemon(
            broker: broker, state: state,
            configure: { configuration in
                guard let webhook else { return }
                configuration.maintenance.webhook = .init(
                    url: URL(string: webhook)!, headers: ["Authorization": token], retryInitial: .milliseconds(50),
                    retryMaximum: .milliseconds(200))
            }, body)
    }

    enum Events {
        /// The next `maintenance_alert` event's alert object.
        static func nextAlert(_ events: AsyncStream<BridgeMessage>) async -> [String: JSONValue]? {
            for await message in events {
                guard let event = message.json?.objectValue, event["type"]?.stringValue == "maintenance_alert" else {
                    continue
                }
                return event["data"]?.objectValue?["alert"]?.objectValue
            }
            return nil
        }

        /// The reminder of `type` in the device's retained `youll/<device>/maintenance` list.
        static func retainedReminder(_ client: BridgeClient, device: String, type: String, timeout: Duration)
            async throws -> [String: JSONValue]?
        {
            let retained = try #require(try await client.retained("youll/\(device)/maintenance", timeout: timeout))
            return retained.json?.arrayValue?.first { $0.objectValue?["type"]?.stringValue == type }?.objectValue
        }

        /// The data of the next `maintenance_delivery_failed` event for the alert `id`.
        static func nextDeliveryFailure(_ events: AsyncStream<BridgeMessage>, alert id: String?) async
            -> [String: JSONValue]?
        {
            for await message in events {
                guard let event = message.json?.objectValue,
                    event["type"]?.stringValue == "maintenance_delivery_failed",
                    let data = event["data"]?.objectValue, data["id"]?.stringValue == id
                else { continue }
                return data
            }
            return nil
        }
    }

    /// Pairs the diffuser as `aroma` and switches its mist on, so its tank starts to run dry.
    static func pairAndMist(_ daemon: RunningDaemon, _ identity: DeviceIdentity) async throws {
        try await daemon.pair(devId: identity.devId, localKey: identity.localKey, as: "aroma")
        _ = try await daemon.client.set(
            device: "aroma", payload: ["state": .string("ON"), "mist": .string("ON")], timeout: timeout)
    }

    static func dryFleet(broker: LocalBroker) async throws -> SimulatorFleet {
        let fleet = try SimulatorFleet(
            options: .init(
                lights: 0, diffusers: 1, seed: 77, behaviour: DeviceBehaviour(tankDuration: .milliseconds(300))),
            library: Repository.shippedProfiles, broker: SwarmConfiguration(brokerURL: broker.url))
        try await fleet.start()
        #expect(await fleet.waitUntilConnected(timeout: timeout))
        return fleet
    }

    @Test(
        "a diffuser running dry alerts on MQTT and at the webhook with its deep link; the link resolves to the due reminder; done resets it"
    )
    func runsDry() async throws {
        let broker = try await LocalBroker.started()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("youll-maint-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let fleet = try await Self.dryFleet(broker: broker)
        defer { fleet.stop() }
        let identity = try #require(fleet.identities.first)

        try await Self.withDaemon(broker, state: state, webhook: receiver.url) { daemon in
            let events = try await daemon.client.subscribe(["youll/bridge/event"])
            try await Self.pairAndMist(daemon, identity)

            // The tank runs dry: the alert arrives on the bridge and at the webhook.
            let link = "youll://tuya/maintenance?type=refill&device=\(identity.devId)"
            var alert = try #require(await Events.nextAlert(events))
            while alert["type"]?.stringValue != "refill" { alert = try #require(await Events.nextAlert(events)) }
            #expect(alert["deeplink"]?.stringValue == link)
            #expect(alert["state"]?.stringValue == "due")
            #expect(alert["friendly_name"]?.stringValue == "aroma")
            let posted = try MaintenanceAlert(jsonData: try #require(await receiver.waitForBodies(1).first))
            #expect(posted.deeplink == link)
            #expect(posted.id == alert["id"]?.stringValue)
            #expect(receiver.requestHeaders.first?["authorization"] == Self.token)
            #expect(receiver.requestHeaders.first?["content-type"] == "application/json")
            #expect(posted.friendlyName == "aroma", "the webhook body names the device as the user does")
            #expect(receiver.requestHeaders.first?["user-agent"] == "youll-devices/test")

            // The retained reminder list of the device says so too.
            let refill = try await Events.retainedReminder(
                daemon.client, device: "aroma", type: "refill", timeout: Self.timeout)
            #expect(refill?["state"]?.stringValue == "due")
            #expect(refill?["deeplink"]?.stringValue == link)

            // The link resolves to the reminder, with its instructions.
            let resolved = try await daemon.client.request(
                "deeplink/resolve", ["url": .string(link)], timeout: Self.timeout)
            #expect(resolved.objectValue?["resolution"]?.stringValue == "proceed")
            let reminder = resolved.objectValue?["reminder"]?.objectValue
            #expect(reminder?["state"]?.stringValue == "due")
            #expect(reminder?["percent_remaining"]?.int64Value == 0)
            #expect((reminder?["steps"]?.arrayValue?.count ?? 0) >= 3)

            // Done resets it, and a second done changes nothing.
            for _ in 0..<2 {
                let done = try await daemon.client.request(
                    "maintenance/done", ["device": .string("aroma"), "type": .string("refill")], timeout: Self.timeout)
                #expect(done.objectValue?["reminder"]?.objectValue?["state"]?.stringValue == "ok")
                #expect(done.objectValue?["reminder"]?.objectValue?["percent_remaining"]?.int64Value == 100)
            }
            let list = try await daemon.client.request(
                "maintenance/list", ["device": .string("aroma")], timeout: Self.timeout)
            let types = list.objectValue?["reminders"]?.arrayValue?.compactMap { $0.objectValue?["type"]?.stringValue }
            #expect(Set(types ?? []) == ["clean", "refill", "replace-wick"])
        }

        let database = try GatewayDatabase.open(directory: state)
        defer { try? database.close() }
        let history = try await database.maintenanceTransitions(of: DeviceID(identity.devId)!)
        #expect(history.filter { $0.type == "refill" }.map(\.to).suffix(2) == ["due", "ok"])
        #expect(try await database.outboxAlerts().map(\.deliveredAt).allSatisfy { $0 != nil })
    }

    @Test(
        "alerts raised while the webhook is down, across daemon restarts, arrive once each after it returns; nothing is repeated"
    )
    func webhookDownAndRestarts() async throws {
        let broker = try await LocalBroker.started()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("youll-maint-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let fleet = try await Self.dryFleet(broker: broker)
        defer { fleet.stop() }
        let identity = try #require(fleet.identities.first)

        // First round: the alert is delivered, then the daemon restarts.
        let first = try await Self.withDaemon(broker, state: state, webhook: receiver.url) { daemon in
            let events = try await daemon.client.subscribe(["youll/bridge/event"])
            try await Self.pairAndMist(daemon, identity)
            let first = try #require(await Events.nextAlert(events))
            _ = await receiver.waitForBodies(1)
            return first
        }

        // The receiver goes down; a restart with the device still dry alerts nothing new.
        receiver.stop()
        let second = try await Self.withDaemon(broker, state: state, webhook: receiver.url) { daemon in
            let events = try await daemon.client.subscribe(["youll/bridge/event"])
            await fleet.refill(identity.devId)
            _ = try await daemon.client.refreshedState(device: "aroma", timeout: Self.timeout)
            _ = try await daemon.client.request(
                "maintenance/done", ["device": .string("aroma"), "type": .string("refill")], timeout: Self.timeout)
            _ = try await daemon.client.set(
                device: "aroma", payload: ["state": .string("ON"), "mist": .string("ON")], timeout: Self.timeout)
            // Dry again: a new round, a new alert, which can only wait in the outbox.
            let second = try #require(await Events.nextAlert(events))
            #expect(second["id"] != first["id"])
            #expect(second["type"]?.stringValue == "refill")
            // The alert event comes before the POST is tried: stop only once the daemon
            // announced the refused POST, which it does after recording it in the outbox.
            let failed = await Events.nextDeliveryFailure(events, alert: second["id"]?.stringValue)
            #expect(
                failed?["reason"] == .string("no response"),
                "the second alert's POST failed while the receiver was down")
            #expect(failed?["attempts"] == .integer(1))
            return second
        }
        trace("second daemon stopped")
        #expect(receiver.bodies.count == 1)

        // Back up, and a third daemon delivers what waited; the first alert is not resent.
        try receiver.start()
        trace("receiver back")
        let bodies = try await Self.withDaemon(broker, state: state, webhook: receiver.url) { _ in
            trace("third daemon up")
            return await receiver.waitForBodies(2)
        }
        trace("bodies")
        let ids = try bodies.map { try MaintenanceAlert(jsonData: $0).id }
        #expect(ids == [first["id"]?.stringValue, second["id"]?.stringValue].compactMap { $0 })
        #expect(receiver.bodies.count == 2)
        let database = try GatewayDatabase.open(directory: state)
        defer { try? database.close() }
        let outbox = try await database.outboxAlerts()
        #expect(outbox.map(\.id) == ids)
        #expect(outbox.allSatisfy { $0.deliveredAt != nil })
        #expect(outbox.last?.attempts ?? 0 >= 1, "the second alert failed at least once while the receiver was down")
    }

    @Test(
        "a refill alert waits while a timer session runs, paused too and across a restart of the daemon, and goes out once the session ends"
    )
    func heldDuringSession() async throws {
        let broker = try await LocalBroker.started()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("youll-maint-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let fleet = try await Self.dryFleet(broker: broker)
        defer { fleet.stop() }
        let identity = try #require(fleet.identities.first)

        try await Self.withDaemon(broker, state: state, webhook: nil) { daemon in
            let client = daemon.client
            let reminders = try await client.subscribe(["youll/aroma/maintenance"])
            _ = try await client.request("session/start", ["minutes": .integer(30)], timeout: Self.timeout)
            // The hold reaches maintenance from the session engine a moment after the start:
            // once a timer link is gated (it reads the same flag), the diffuser is paired and
            // mists, and its tank runs dry while the session runs.
            var gated = false
            for _ in 0..<500 where !gated {
                let resolved = try await client.request(
                    "deeplink/resolve", ["url": .string("youll://timer?preset=calm&minutes=10")],
                    timeout: Self.timeout)
                gated = resolved["resolution"] == .string("gated")
            }
            #expect(gated, "maintenance never learnt that the session runs")
            try await Self.pairAndMist(daemon, identity)
            _ = try await reminders.first(within: 20, "the refill reminder due") { message in
                message.json?.arrayValue?.contains {
                    $0["type"] == .string("refill") && $0["state"] == .string("due")
                } == true
            }
            // A marker on the event topic: an alert not held would have come before it.
            _ = try await client.request("session/pause", [:], timeout: Self.timeout)
            _ = try await client.request("session/resume", [:], timeout: Self.timeout)
        }
        // The daemon restarts: the session resumes, and the owed alert stays held through the start.
        try await Self.withDaemon(broker, state: state, webhook: nil) { daemon in
            let client = daemon.client
            let events = try await client.subscribe(["youll/bridge/event"])
            // Returns once maintenance has loaded and registered the diffuser: an alert not
            // held would have been sent by then, before the marker.
            _ = try await client.request("maintenance/list", [:], timeout: Self.timeout)
            _ = try await client.request("session/pause", [:], timeout: Self.timeout)
            _ = try await client.request("session/stop", ["immediately": .bool(true)], timeout: Self.timeout)
            let seen = try await withDeadline(20, "the refill alert once the session ended") {
                var seen: [String] = []
                for await message in events {
                    guard let type = message.json?["type"]?.stringValue else { continue }
                    seen.append(type)
                    if type == "maintenance_alert" { break }
                }
                return seen
            }
            let paused = try #require(seen.firstIndex(of: "session_paused"), "\(seen)")
            #expect(seen.firstIndex(of: "maintenance_alert") == seen.count - 1 && paused < seen.count - 1, "\(seen)")
        }
        broker.stop()
    }

    @Test("hostile maintenance and deep-link requests are refused with the field named")
    func hostileRequests() async throws {
        let broker = try await LocalBroker.started()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("youll-maint-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        try await Self.withDaemon(broker, state: state, webhook: nil) { daemon in
            let cases: [(String, [String: JSONValue], String)] = [
                ("deeplink/resolve", ["url": .string("javascript:alert(1)")], "url: "),
                (
                    "deeplink/resolve", ["url": .string("youll://tuya/maintenance?type=refill&type=clean&device=x")],
                    "url: "
                ),
                ("deeplink/resolve", ["url": .string(String(repeating: "a", count: 9000))], "url: "),
                ("deeplink/resolve", ["url": .integer(5)], "url: "),
                ("deeplink/resolve", [:], "url: missing"),
                ("maintenance/done", ["device": .string("nope"), "type": .string("refill")], "device: "),
                ("maintenance/done", ["device": .string("nope"), "type": .string("../etc")], "type: "),
                (
                    "maintenance/snooze",
                    ["device": .string("x"), "type": .string("refill"), "for": .string("2 years")],
                    "for: "
                ),
                (
                    "maintenance/snooze", ["device": .string("x"), "type": .string("refill"), "for": .integer(-5)],
                    "for: "
                ),
                ("maintenance/list", ["device": .string("x"), "extra": .bool(true)], "extra: "),
            ]
            for (verb, payload, field) in cases {
                do {
                    _ = try await daemon.client.request(verb, payload, timeout: Self.timeout)
                    Issue.record("\(verb) \(payload) succeeded")
                } catch {
                    #expect(String(describing: error).contains(field), "\(verb): \(error)")
                }
            }
            // A well-formed link to an unpaired device is a gate, not an error.
            let gated = try await daemon.client.request(
                "deeplink/resolve", ["url": .string("youll://tuya/devices/bf0000000000000000")], timeout: Self.timeout)
            #expect(gated.objectValue?["resolution"]?.stringValue == "gated")
            #expect(gated.objectValue?["action"]?.stringValue?.contains("youll-devices pair") == true)
        }
    }
}

private func trace(_ text: String) {
    if ProcessInfo.processInfo.environment["YOULL_TEST_LOG"] != nil { print("TRACE \(text)") }
}
