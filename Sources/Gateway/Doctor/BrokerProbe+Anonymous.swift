import Foundation
import MQTTLink

extension BrokerObservation {
    /// Whether the broker lets clients in without credentials, and what they may write.
    public enum AnonymousAccess: Equatable, Sendable {
        /// A client without username, password or client certificate is not authorised.
        case refused
        /// Such a client connects; `writesRequests`: its publish on `<base>/bridge/request/…`
        /// reached a client of the gateway's (the gateway's requests are open to it).
        case accepted(writesRequests: Bool)
    }
}

extension BrokerProbe {
    /// Connects once without credentials and, when let in, publishes on a request topic that a
    /// client with the gateway's credentials listens to. nil when it cannot tell (no answer).
    /// The topic's verb is not one the daemon answers (it has a `-`), so the daemon ignores it.
    public func observeAnonymousAccess() async -> BrokerObservation.AnonymousAccess? {
        var anonymous = configuration
        anonymous.username = nil
        anonymous.password = nil
        anonymous.tls?.certFile = nil
        anonymous.tls?.keyFile = nil
        guard let intruder = try? MQTTClient(configuration: anonymous) else { return nil }
        switch await firstOf(timeout, on: ContinuousClock(), { try await intruder.connect() }) {
        case nil:
            Task { await intruder.close() }
            return nil
        case .failure(let error):
            await intruder.close()
            if case .notAuthorised? = error as? MQTTError { return .refused }
            return nil
        case .success:
            break
        }
        defer { Task { await intruder.close() } }
        guard let watcher = try? MQTTClient(configuration: configuration) else {
            return .accepted(writesRequests: false)
        }
        defer { Task { await watcher.close() } }
        let topic = baseTopic + "/bridge/request/doctor-anonymous-" + UUID().uuidString.lowercased()
        let marker = Array(UUID().uuidString.utf8)
        let events = watcher.events
        // Each step has the whole timeout: on a busy machine connecting alone may take seconds.
        let listening = await firstOf(timeout, on: ContinuousClock()) {
            try await watcher.connect()
            try await watcher.subscribe(topic)
        }
        guard case .success = listening else { return .accepted(writesRequests: false) }
        let delivered = await firstOf(timeout, on: clock) { () async throws -> Bool in
            try await intruder.publish(topic: topic, payload: marker)
            for await event in events {
                if case .message(let message) = event, message.topic == topic, message.payload == marker { return true }
            }
            return false
        }
        if case .success(true) = delivered { return .accepted(writesRequests: true) }
        return .accepted(writesRequests: false)
    }
}

extension DoctorCheck {
    /// `access`: an open broker lets anyone reach the bridge API and read every device's state.
    public static func anonymousAccess(
        _ access: BrokerObservation.AnonymousAccess, baseTopic: String
    ) -> DoctorCheck {
        let fix =
            "set allow_anonymous false and a password_file in mosquitto.conf, with an ACL per user "
            + "(README \"Securing the broker\")"
        switch access {
        case .refused:
            return .ok("access", "the broker refuses clients without credentials")
        case .accepted(writesRequests: true):
            return .warn(
                "access",
                "the broker accepts clients without credentials, and they can publish on \(baseTopic)/bridge/request/#: "
                    + "anyone who reaches it can drive every device, and only bridge.auth stands between them and "
                    + "pairing, removing or renaming", fix: fix)
        case .accepted(writesRequests: false):
            return .warn(
                "access",
                "the broker accepts clients without credentials (their publishes on \(baseTopic)/bridge/request/# "
                    + "did not arrive); they can read what the ACL lets them", fix: fix)
        }
    }
}
