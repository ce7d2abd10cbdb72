import Foundation
import MQTTLink

/// The verdicts on the broker: reachable and authorised (`broker`), the base topic usable
/// (`topics`), the daemon online (`daemon`). Pure: `BrokerProbe` gathers the observation.
extension DoctorCheck {
    static let startDaemon = "start it with `systemctl start youll-devices` or `youll-devices serve`"

    /// `broker` is the URL without credentials; `user` the configured username, if any.
    public static func broker(
        _ observation: BrokerObservation, broker: String, user: String?, baseTopic: String
    ) -> [DoctorCheck] {
        switch observation.connection {
        case .noAnswer(let timeout):
            return [
                .fail(
                    "broker", "\(broker): no answer within \(timeout.seconds) s",
                    fix: "check mqtt.url, the network and the firewall between here and the broker")
            ]
        case .failed(let error):
            return [.fail("broker", "\(broker): \(error)", fix: fix(for: error))]
        case .connected:
            let who = user.map { " as \($0)" } ?? ""
            var checks: [DoctorCheck] = [.ok("broker", "\(broker) reachable, authorised\(who)")]
            if let roundTrip = observation.roundTrip { checks.append(topics(roundTrip, baseTopic: baseTopic)) }
            if let state = observation.bridgeState {
                let topicsWork = observation.roundTrip.map { $0 == .passed } ?? true
                checks.append(
                    state == .nothingRetained && !topicsWork
                        ? .warn(
                            "daemon",
                            "cannot tell whether the daemon is running: nothing came from \(baseTopic)/bridge/state, "
                                + "which the broker's ACL may hide",
                            fix: "allow this user to read \(baseTopic)/# in the broker's ACL")
                        : daemon(state, baseTopic: baseTopic))
            }
            return checks
        }
    }

    static func topics(_ roundTrip: BrokerObservation.RoundTrip, baseTopic: String) -> DoctorCheck {
        let fix = "allow this user readwrite on \(baseTopic)/# in the broker's ACL"
        switch roundTrip {
        case .passed:
            return .ok("topics", "a message published under \(baseTopic)/ came back")
        case .failed(let error):
            return .warn("topics", "cannot use \(baseTopic)/: \(error)", fix: fix)
        case .noEcho(let timeout):
            return .warn(
                "topics",
                "a message published under \(baseTopic)/bridge/doctor/ did not come back within \(timeout.seconds) s "
                    + "(the broker's ACL probably drops it)", fix: fix)
        }
    }

    static func daemon(_ state: BrokerObservation.BridgeState, baseTopic: String) -> DoctorCheck {
        let topic = "\(baseTopic)/bridge/state"
        switch state {
        case .unreadable(let error):
            return .warn(
                "daemon", "cannot read \(topic): \(error)",
                fix: "allow this user to read \(baseTopic)/# in the broker's ACL")
        case .nothingRetained:
            return .warn("daemon", "the daemon is not running (nothing retained on \(topic))", fix: startDaemon)
        case .retained(let payload):
            switch bridgeStateValue(payload) {
            case "online":
                return .ok("daemon", "running (\(topic) is online)")
            case "offline":
                return .warn("daemon", "the daemon is not running (\(topic) is offline)", fix: startDaemon)
            default:
                return .warn(
                    "daemon",
                    "\(topic) holds \(payload.count) bytes that are not {\"state\":\"online\"} or offline",
                    fix: "another program publishes on \(baseTopic)/; give this gateway its own base_topic")
            }
        }
    }

    /// `{"state":"online"}` (README, "The MQTT bridge API") → "online"; also the bare word, as
    /// zigbee2mqtt once published. nil for anything else, including oversized payloads.
    static func bridgeStateValue(_ payload: [UInt8]) -> String? {
        guard payload.count <= 1024 else { return nil }
        struct State: Decodable { var state: String }
        if let decoded = try? JSONDecoder().decode(State.self, from: Data(payload)) { return decoded.state }
        let text = String(decoding: payload, as: UTF8.self)
        return ["online", "offline"].contains(text) ? text : nil
    }

    static func fix(for error: MQTTError) -> String {
        switch error {
        case .connectionRefused:
            "start the broker (systemctl start mosquitto), or set mqtt.url to where it listens"
        case .hostNotFound:
            "check the host name in mqtt.url"
        case .network, .timedOut, .connectionLost:
            "check mqtt.url, the network and the firewall between here and the broker"
        case .notAuthorised:
            "check mqtt.username and mqtt.password (or YOULL_MQTT_USERNAME / YOULL_MQTT_PASSWORD) against the "
                + "broker's password file"
        case .tlsFailed:
            "check that mqtt.ca_file signs the broker's certificate and that the certificate names the host in mqtt.url"
        case .invalidConfiguration, .invalidURL:
            "check mqtt.url and the TLS files in the configuration"
        case .connectionRejected, .protocolError, .library, .subscriptionRefused, .invalidTopic, .notConnected,
            .closed:
            "see the broker's log for why it refused this client"
        }
    }
}

extension Duration {
    /// Whole seconds, for messages.
    fileprivate var seconds: Int64 { components.seconds }
}
