import Foundation

extension MQTTConfiguration {
    /// Parses `mqtt://[user[:password]@]host[:port]` or `mqtts://…` (TLS, default port 8883).
    /// User and password may be percent-encoded. `tls` overrides the CA of an `mqtts` URL, which
    /// otherwise trusts the system CA store. Errors show the URL with the password as `***`.
    public init(url: String, tls: TLS? = nil) throws(MQTTError) {
        let shown = Self.redacting(url)
        guard let components = URLComponents(string: url) else {
            throw .invalidURL(url: shown, reason: "not a URL; expected mqtt://user:password@host:port")
        }
        let secure: Bool
        switch components.scheme?.lowercased() {
        case "mqtt", "tcp": secure = false
        case "mqtts", "ssl": secure = true
        case nil: throw .invalidURL(url: shown, reason: "missing scheme; expected mqtt:// or mqtts://")
        case let other?:
            throw .invalidURL(url: shown, reason: "unsupported scheme \"\(other)\"; use mqtt or mqtts")
        }
        guard var host = components.host, !host.isEmpty else {
            throw .invalidURL(url: shown, reason: "missing host")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if let port = components.port, !(1...65535).contains(port) {
            throw .invalidURL(url: shown, reason: "port \(port) is outside 1–65535")
        }
        guard components.path.isEmpty || components.path == "/" else {
            throw .invalidURL(url: shown, reason: "unexpected path \"\(components.path)\"")
        }
        guard components.query == nil, components.fragment == nil else {
            throw .invalidURL(url: shown, reason: "query and fragment are not supported")
        }
        if components.password != nil, (components.user ?? "").isEmpty {
            throw .invalidURL(url: shown, reason: "a password needs a username")
        }
        let user = components.user.flatMap { $0.isEmpty ? nil : $0 }
        self.init(
            host: host,
            port: components.port,
            username: user,
            password: components.password,
            tls: secure ? (tls ?? TLS(caFile: nil)) : tls
        )
    }

    /// The URL as it may appear in an error: any password between `user:` and `@` becomes `***`.
    static func redacting(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(where: { "/?#".contains($0) }) ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@"),
            let colon = rest[..<at].firstIndex(of: ":")
        else { return url }
        return String(url[..<rest.index(after: colon)]) + "***" + String(url[at...])
    }
}
