import Timing

/// Everything needed to reach one broker. Defaults follow INTEROP.md: `TCP_NODELAY` on (Nagle
/// stalls every QoS 1 round trip by ~40 ms) and a bounded in-flight window of 20 (an unbounded
/// burst overflows the broker's queue and is dropped silently).
///
/// The password is never part of `description` or the mirror, so a configuration can be logged.
public struct MQTTConfiguration: Sendable, CustomStringConvertible, CustomReflectable {
    public var host: String
    public var port: Int
    /// A stable client id also asks for a persistent session (clean_session false), so the broker
    /// keeps subscriptions and queued QoS 1 messages across short disconnects. `nil` lets the
    /// library pick a random id with a clean session.
    public var clientID: String?
    public var username: String?
    public var password: String?
    /// MQTT keepalive; libmosquitto pings within it and declares the link dead after 1.5×.
    public var keepalive: Duration
    /// `nil` for plain TCP. With TLS the broker certificate is always verified, host name included.
    public var tls: TLS?
    public var lastWill: LastWill?
    public var reconnect: Backoff
    /// Sets MOSQ_OPT_TCP_NODELAY; see the type's comment.
    public var tcpNoDelay: Bool
    /// Outgoing QoS 1 messages awaiting PUBACK at once; more are queued inside libmosquitto.
    public var maxInflight: Int
    /// How long a connect may take from TCP connect to CONNACK before it counts as failed.
    public var connectTimeout: Duration
    /// Messages received and not yet read by the client's consumer, at most: more are dropped
    /// and counted (`MQTTClient.droppedMessages`). Anyone who can publish on a subscribed
    /// topic can send faster than the consumer reads; without a bound the buffer grew with it.
    public var maximumBufferedMessages = 16_384

    /// TLS with server verification. There is deliberately no "insecure" switch: a gateway that
    /// accepts any certificate hands its device keys to whoever answers.
    public struct TLS: Sendable, Equatable {
        /// PEM file with the CA(s) that sign the broker's certificate; `nil` trusts the system's
        /// CA store (MOSQ_OPT_TLS_USE_OS_CERTS), right for public brokers.
        public var caFile: String?
        /// Client certificate and key (PEM) for brokers that require mutual TLS; both or neither.
        public var certFile: String?
        public var keyFile: String?

        public init(caFile: String?, certFile: String? = nil, keyFile: String? = nil) {
            self.caFile = caFile
            self.certFile = certFile
            self.keyFile = keyFile
        }
    }

    /// Published by the broker when this client vanishes without DISCONNECT (crash, network loss).
    public struct LastWill: Sendable, Equatable {
        public var topic: String
        public var payload: [UInt8]
        public var qos: MQTTQoS
        public var retain: Bool

        public init(topic: String, payload: [UInt8], qos: MQTTQoS = .atLeastOnce, retain: Bool = true) {
            self.topic = topic
            self.payload = payload
            self.qos = qos
            self.retain = retain
        }
    }

    public init(
        host: String,
        port: Int? = nil,
        clientID: String? = nil,
        username: String? = nil,
        password: String? = nil,
        keepalive: Duration = .seconds(30),
        tls: TLS? = nil,
        lastWill: LastWill? = nil,
        reconnect: Backoff = .broker,
        tcpNoDelay: Bool = true,
        maxInflight: Int = 20,
        connectTimeout: Duration = .seconds(10)
    ) {
        self.host = host
        self.port = port ?? (tls == nil ? 1883 : 8883)
        self.clientID = clientID
        self.username = username
        self.password = password
        self.keepalive = keepalive
        self.tls = tls
        self.lastWill = lastWill
        self.reconnect = reconnect
        self.tcpNoDelay = tcpNoDelay
        self.maxInflight = maxInflight
        self.connectTimeout = connectTimeout
    }

    /// `mqtt[s]://user:***@host:port`: what logs and errors may show.
    public var description: String {
        var text = tls == nil ? "mqtt://" : "mqtts://"
        if let username {
            text += username + (password == nil ? "" : ":***") + "@"
        }
        text += host.contains(":") ? "[\(host)]" : host
        text += ":\(port)"
        if let clientID { text += " (client id \(clientID))" }
        return text
    }

    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "broker": description, "keepalive": keepalive, "tls": tls as Any,
                "lastWill": lastWill as Any,
                "reconnect": reconnect, "tcpNoDelay": tcpNoDelay, "maxInflight": maxInflight,
            ],
            displayStyle: .struct
        )
    }
}
