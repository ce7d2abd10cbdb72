/// Why a bridge API call from the CLI failed, one case per thing a user can act on. Texts
/// that came from the broker or the daemon are passed through `BridgeText.printable`, so
/// a hostile peer cannot put terminal escapes or megabytes into an error line.
public enum BridgeClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The first connection to the broker failed (refused, unknown host, TLS, credentials).
    case brokerUnreachable(broker: String, reason: String)
    /// The broker call itself failed after connecting (subscription refused by an ACL, …).
    case broker(String)
    /// The connection to the broker ended while an answer was awaited.
    case connectionLost(broker: String, reason: String)
    /// `<base>/bridge/state` is not `online`: no daemon answers on this base topic.
    case daemonNotRunning(stateTopic: String, found: String)
    /// Nothing is retained on `<base>/bridge/state` and the broker started `brokerUptime`
    /// seconds ago: it keeps no retained messages across a restart, so a running daemon
    /// may simply not have reconnected and republished yet.
    case daemonNotRepublished(stateTopic: String, brokerUptime: Int)
    /// No answer within the time allowed; `waitingFor` names the topic.
    case timedOut(waitingFor: String, after: Duration)
    /// The daemon answered `status: error`; `message` is its `error` text.
    case requestFailed(verb: String, message: String)
    /// Something arrived on a response topic that is not a bridge response.
    case malformedResponse(topic: String, reason: String)
    /// A retained payload (`bridge/devices`, a device state) could not be read.
    case malformedPayload(topic: String, reason: String)
    /// The daemon has never published this retained topic.
    case nothingRetained(topic: String, hint: String)
    /// No paired device has this friendly name or id; `lookalike` is one whose name looks the
    /// same on a screen (`lаmp` with a Cyrillic а for `lamp`).
    case unknownDevice(name: String, known: [String], lookalike: String? = nil)

    /// What a CLI user reads: the description, without the daemon's routing prefix
    /// (`device/rename: …`) on a refused request — they typed a command, not a topic
    /// (issue 14 item 15).
    public var userMessage: String {
        if case .requestFailed(let verb, let message) = self, message.hasPrefix(verb + ": ") {
            return String(message.dropFirst(verb.count + 2))
        }
        return description
    }

    public var description: String {
        switch self {
        case .brokerUnreachable(let broker, let reason):
            "cannot reach the broker at \(broker): \(reason)"
        case .broker(let reason):
            "broker: \(reason)"
        case .connectionLost(let broker, let reason):
            "lost the connection to the broker at \(broker) (\(reason)) before the daemon answered"
        case .daemonNotRunning(let topic, let found):
            "the daemon is not running (\(topic) \(found)); start it with `youll-devices serve` or "
                + "`systemctl start youll-devices`"
        case .daemonNotRepublished(let topic, let uptime):
            "nothing is published on \(topic) since the broker started \(uptime) s ago: a running daemon "
                + "republishes it within seconds of reconnecting, so try again; if none is running, start it with "
                + "`youll-devices serve` or `systemctl start youll-devices`"
        case .timedOut(let what, let after):
            "timed out after \(Self.seconds(after)) waiting for \(what)"
        case .requestFailed(_, let message):
            message
        case .malformedResponse(let topic, let reason):
            "a malformed response on \(topic): \(reason)"
        case .malformedPayload(let topic, let reason):
            "cannot read \(topic): \(reason)"
        case .nothingRetained(let topic, let hint):
            "nothing is published on \(topic); \(hint)"
        case .unknownDevice(let name, _, let lookalike?):
            "no device named \"\(name)\"; did you mean \"\(lookalike)\"? the name typed has Cyrillic or Greek "
                + "letters that look like Latin ones"
        case .unknownDevice(let name, let known, nil):
            if known.isEmpty {
                "no device named \"\(name)\": no devices are paired; pair one with `youll-devices pair mqtt`"
            } else {
                "no device named \"\(name)\" (by friendly name or id); paired: "
                    + known.prefix(8).joined(separator: ", ") + (known.count > 8 ? ", …" : "")
            }
        }
    }

    /// "10 s", "0.5 s".
    static func seconds(_ duration: Duration) -> String {
        let (whole, fraction) = (duration.components.seconds, duration.components.attoseconds)
        if fraction == 0 { return "\(whole) s" }
        let value = Double(whole) + Double(fraction) / 1e18
        return "\((value * 1000).rounded() / 1000) s"
    }
}
