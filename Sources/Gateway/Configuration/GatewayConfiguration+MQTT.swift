import Foundation
import MQTTLink

extension GatewayConfiguration {
    /// The gateway's own broker connection: the one devices report on and the bridge API lives on.
    ///
    /// Credentials are separate keys, never part of the URL, so that the URL can be logged. The
    /// password is left out of `description` and the mirror.
    public struct MQTT: Hashable, Sendable, CustomStringConvertible, CustomReflectable {
        public var broker = BrokerAddress(usesTLS: false, host: "127.0.0.1", port: 1883)
        public var username: String?
        public var password: String?
        /// PEM CA bundle for an `mqtts://` broker; `nil` trusts the system store.
        public var caFile: String?
        /// Client certificate and key (PEM) for mutual TLS; both or neither.
        public var clientCertificateFile: String?
        public var clientKeyFile: String?
        /// `nil` uses `youll-devices-<base topic>-<per-install suffix>`, stable so the broker keeps
        /// the session, and distinct per gateway on a shared broker.
        public var clientID: String?
        public var keepalive: Duration = .seconds(30)
        /// The per-install random suffix of the default client ids (`<state>/client-id`), set by
        /// the daemon; another client reusing the well-known id cannot take the bridge's session over.
        public var clientIDSuffix: String?

        public init() {}

        public var description: String {
            var text = broker.scheme + "://"
            if let username { text += username + (password == nil ? "" : ":***") + "@" }
            text += broker.authority
            if caFile != nil { text += " (CA file)" }
            if clientCertificateFile != nil { text += " (client certificate)" }
            if let clientID { text += " (client id \(clientID))" }
            return text
        }

        public var customMirror: Mirror {
            Mirror(
                self,
                children: [
                    "broker": description, "caFile": caFile as Any,
                    "clientCertificateFile": clientCertificateFile as Any,
                    "clientKeyFile": clientKeyFile as Any, "keepalive": keepalive,
                ],
                displayStyle: .struct)
        }
    }

    /// `mqtt://host:port` or `mqtts://host:port`, already checked.
    public struct BrokerAddress: Hashable, Sendable, CustomStringConvertible {
        public var usesTLS: Bool
        /// Without brackets, also for IPv6.
        public var host: String
        public var port: Int

        public init(usesTLS: Bool, host: String, port: Int) {
            self.usesTLS = usesTLS
            self.host = host
            self.port = port
        }

        public var scheme: String { usesTLS ? "mqtts" : "mqtt" }
        var authority: String { (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }
        public var description: String { "\(scheme)://\(authority)" }
    }

    /// The client id used when the file sets none.
    public var effectiveClientID: String {
        mqtt.clientID
            ?? "youll-devices-" + baseTopic.replacingOccurrences(of: "/", with: "-")
            + (mqtt.clientIDSuffix.map { "-" + $0 } ?? "")
    }

    /// What `MQTTLink` needs to connect as the gateway; `lastWill` is the bridge's `offline` state.
    public func mqttLinkConfiguration(lastWill: MQTTConfiguration.LastWill? = nil) -> MQTTConfiguration {
        let tls =
            mqtt.broker.usesTLS
            ? MQTTConfiguration.TLS(
                caFile: mqtt.caFile, certFile: mqtt.clientCertificateFile, keyFile: mqtt.clientKeyFile)
            : nil
        return MQTTConfiguration(
            host: mqtt.broker.host, port: mqtt.broker.port, clientID: effectiveClientID, username: mqtt.username,
            password: mqtt.password, keepalive: mqtt.keepalive, tls: tls, lastWill: lastWill)
    }
}
