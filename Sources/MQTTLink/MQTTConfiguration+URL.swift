import Foundation

extension MQTTConfiguration {
    /// Parses `mqtt://[user[:password]@]host[:port]` or `mqtts://…` (TLS, default port 8883).
    /// User and password may be percent-encoded. `tls` overrides the CA of an `mqtts` URL, which
    /// otherwise trusts the system CA store. Errors show the URL with the password as `***`.
    public init(url: String, tls: TLS? = nil) throws(MQTTError) {
        let shown = Self.redacting(url)
        let parts = try BrokerURL.parse(url, shown: shown)
        let secure: Bool
        switch parts.scheme.lowercased() {
        case "mqtt", "tcp": secure = false
        case "mqtts", "ssl": secure = true
        case let other:
            throw .invalidURL(url: shown, reason: "unsupported scheme \"\(other)\"; use mqtt or mqtts")
        }
        if parts.password != nil, (parts.user ?? "").isEmpty {
            throw .invalidURL(url: shown, reason: "a password needs a username")
        }
        let user = parts.user.flatMap { $0.isEmpty ? nil : $0 }
        self.init(
            host: parts.host,
            port: parts.port,
            username: user,
            password: parts.password,
            tls: secure ? (tls ?? TLS(caFile: nil)) : tls
        )
    }

    /// The URL as it may appear in an error: anything between `user:` and the last `@`
    /// becomes `***`, whatever the password holds (`/`, `?`, `#` or `@`), scheme or not.
    public static func redacting(_ url: String) -> String {
        let rest = url.range(of: "://").map { url[$0.upperBound...] } ?? url[...]
        guard let at = rest.lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") else { return url }
        return String(url[..<rest.index(after: colon)]) + "***" + String(url[at...])
    }
}
