import CMosquitto

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Everything `MQTTLink` can fail with, one case per thing a user can fix. Messages name the
/// broker and the likely fix; a password never appears in any of them.
public enum MQTTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing accepts TCP connections there: the broker is down or listens elsewhere.
    case connectionRefused(host: String, port: Int)
    /// The host name did not resolve (DNS or /etc/hosts).
    case hostNotFound(host: String)
    /// Any other socket-level failure (unreachable network, reset), with the system's words.
    case network(host: String, port: Int, reason: String)
    /// CONNACK 4/5 (MQTT 3.1.1) or 134/135 (MQTT 5): bad username/password or an ACL refusal.
    case notAuthorised(username: String?)
    /// The broker refused the connection for another reason (protocol version, client id, busy).
    case connectionRejected(code: Int32, reason: String)
    /// The TLS handshake failed: usually the CA does not sign the broker's certificate, or the
    /// certificate does not name the host that was dialled.
    case tlsFailed(host: String, port: Int)
    /// The broker sent something libmosquitto could not parse or did not expect.
    case protocolError(String)
    /// No answer within the allotted time (CONNACK, keepalive PINGRESP, TCP connect).
    case timedOut(String)
    /// The established connection ended (broker restart, network loss).
    case connectionLost(String)
    /// The call needs a connection and there is none; nothing was sent or queued.
    case notConnected
    /// `close()` was called; the client cannot be used any more.
    case closed
    /// A broker URL that cannot be used; `url` has any password replaced by `***`.
    case invalidURL(url: String, reason: String)
    /// A setting libmosquitto rejected (unreadable TLS file, out-of-range value).
    case invalidConfiguration(String)
    /// A topic that cannot be published or subscribed to (empty, wildcard in a publish, bad UTF-8).
    case invalidTopic(String)
    /// The broker answered SUBACK 0x80: the subscription is not allowed (ACL).
    case subscriptionRefused(topic: String)
    /// Any other libmosquitto error, with `mosquitto_strerror`'s text.
    case library(code: Int32, message: String)

    public var description: String {
        switch self {
        case .connectionRefused(let host, let port):
            "connection refused by \(host):\(port): is mosquitto running on \(host):\(port)?"
        case .hostNotFound(let host):
            "host not found: \(host) does not resolve; check the broker address"
        case .network(let host, let port, let reason):
            "cannot reach \(host):\(port): \(reason)"
        case .notAuthorised(let username):
            if let username {
                "not authorised: the broker rejected user \"\(username)\"; check the username and password"
            } else {
                "not authorised: the broker requires a username and password (or an ACL denies this client)"
            }
        case .connectionRejected(let code, let reason):
            "the broker rejected the connection (CONNACK \(code)): \(reason)"
        case .tlsFailed(let host, let port):
            "TLS verification with \(host):\(port) failed: check that caFile signs the broker's certificate "
                + "and that the certificate names \(host)"
        case .protocolError(let detail):
            "MQTT protocol error: \(detail)"
        case .timedOut(let what):
            "timed out: \(what)"
        case .connectionLost(let reason):
            "connection lost: \(reason)"
        case .notConnected:
            "not connected to the broker: nothing was sent"
        case .closed:
            "the MQTT client is closed"
        case .invalidURL(let url, let reason):
            "invalid broker URL \(url): \(reason)"
        case .invalidConfiguration(let detail):
            "invalid MQTT configuration: \(detail)"
        case .invalidTopic(let topic):
            "invalid topic \"\(topic)\": topics are non-empty UTF-8, and wildcards (+, #) are only for subscribing"
        case .subscriptionRefused(let topic):
            "the broker refused the subscription to \(topic) (check its ACL)"
        case .library(let code, let message):
            "libmosquitto error \(code): \(message)"
        }
    }
}

extension MQTTError {
    /// Maps a libmosquitto return code. `systemError` is `errno` read right after the failing call
    /// (meaningful for `MOSQ_ERR_ERRNO` only).
    static func mosquitto(_ code: Int32, systemError: Int32 = 0, host: String, port: Int) -> MQTTError {
        switch code {
        case MOSQ_ERR_ERRNO.rawValue:
            switch systemError {
            case ECONNREFUSED: return .connectionRefused(host: host, port: port)
            case ETIMEDOUT: return .timedOut("TCP connect to \(host):\(port)")
            default:
                return .network(host: host, port: port, reason: String(cString: strerror(systemError)))
            }
        case MOSQ_ERR_EAI.rawValue, MOSQ_ERR_LOOKUP.rawValue:
            return .hostNotFound(host: host)
        case MOSQ_ERR_TLS.rawValue, MOSQ_ERR_TLS_HANDSHAKE.rawValue, MOSQ_ERR_OCSP.rawValue:
            return .tlsFailed(host: host, port: port)
        case MOSQ_ERR_CONN_LOST.rawValue:
            return .connectionLost("\(host):\(port) closed the connection")
        case MOSQ_ERR_KEEPALIVE.rawValue:
            return .timedOut("no PINGRESP from \(host):\(port) within the keepalive")
        case MOSQ_ERR_TIMEOUT.rawValue:
            return .timedOut("waiting for \(host):\(port)")
        case MOSQ_ERR_NO_CONN.rawValue:
            return .notConnected
        case MOSQ_ERR_AUTH.rawValue:
            return .notAuthorised(username: nil)
        case MOSQ_ERR_PROTOCOL.rawValue, MOSQ_ERR_MALFORMED_PACKET.rawValue,
            MOSQ_ERR_DUPLICATE_PROPERTY.rawValue,
            MOSQ_ERR_OVERSIZE_PACKET.rawValue, MOSQ_ERR_QOS_NOT_SUPPORTED.rawValue,
            MOSQ_ERR_NOT_SUPPORTED.rawValue:
            return .protocolError(String(cString: mosquitto_strerror(code)))
        default:
            return .library(code: code, message: String(cString: mosquitto_strerror(code)))
        }
    }

    /// Maps a refusing CONNACK code (MQTT 3.1.1: 1–5, MQTT 5: ≥ 128).
    static func connack(_ code: Int32, username: String?) -> MQTTError {
        switch code {
        case 4, 5, 134, 135: .notAuthorised(username: username)
        default:
            .connectionRejected(code: code, reason: String(cString: mosquitto_connack_string(code)))
        }
    }
}
