import Foundation

extension GatewayConfiguration {
    /// Maintenance reminders (`maintenance:` in the file).
    public struct Maintenance: Hashable, Sendable {
        /// Whether the daemon tracks reminders and delivers alerts at all.
        public var enabled: Bool = true
        /// The optional HTTP receiver alerts are POSTed to, from a durable outbox.
        public var webhook: Webhook?

        public init() {}
    }

    /// `maintenance.webhook`: where alerts are POSTed and how failures are retried. The URL
    /// and headers can carry secrets (a token in the query, an `Authorization` header):
    /// `description` shows the scheme, host and path only, and never a header's value.
    public struct Webhook: Hashable, Sendable, CustomStringConvertible, CustomReflectable {
        public var url: URL
        /// Extra request headers (`Authorization: Bearer …`); values are never logged.
        public var headers: [String: String]
        /// The wait after the first failed attempt; it doubles up to `retryMaximum`.
        public var retryInitial: Duration
        public var retryMaximum: Duration

        public init(
            url: URL, headers: [String: String] = [:], retryInitial: Duration = .seconds(1),
            retryMaximum: Duration = .seconds(300)
        ) {
            self.url = url
            self.headers = headers
            self.retryInitial = retryInitial
            self.retryMaximum = retryMaximum
        }

        /// `https://host/path` without user information, port details kept, query dropped.
        public var description: String {
            var shown = (url.scheme ?? "http") + "://" + (url.host ?? "?")
            if let port = url.port { shown += ":\(port)" }
            shown += url.path
            if url.query != nil { shown += "?…" }
            if !headers.isEmpty { shown += " (headers: \(headers.keys.sorted().joined(separator: ", ")))" }
            return shown
        }

        public var customMirror: Mirror { Mirror(self, children: ["url": description], displayStyle: .struct) }
    }
}

extension ConfigurationValue {
    /// An http(s) URL with a host, no user information or fragment, at most 2,048 bytes.
    /// Errors quote the URL without its query, which may hold a token.
    static func webhookURL(_ text: String) throws(InvalidValue) -> URL {
        let shown = String(text.split(separator: "?", maxSplits: 1).first?.prefix(80) ?? "")
        guard text.utf8.count <= 2048 else { throw InvalidValue("webhook URL is longer than 2048 bytes") }
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw InvalidValue("webhook URL must be printable ASCII without spaces (percent-encode the rest)")
        }
        guard let components = URLComponents(string: text), let url = components.url,
            let scheme = components.scheme?.lowercased(), ["http", "https"].contains(scheme)
        else {
            throw InvalidValue("'\(shown)' is not an http:// or https:// URL")
        }
        guard let host = components.host, !host.isEmpty else {
            throw InvalidValue("webhook URL '\(shown)' has no host")
        }
        guard components.user == nil, components.password == nil else {
            throw InvalidValue("webhook URL must not carry user:password@; use maintenance.webhook.headers")
        }
        guard components.fragment == nil else { throw InvalidValue("webhook URL must not have a #fragment") }
        return url
    }

    /// An HTTP header name (RFC 9110 token) that the gateway does not set itself.
    static func headerName(_ text: String) throws(InvalidValue) -> String {
        let token = "!#$%&'*+-.^_`|~"
        guard (1...64).contains(text.utf8.count),
            text.unicodeScalars.allSatisfy({
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || token.unicodeScalars.contains($0))
            })
        else {
            throw InvalidValue("'\(text.prefix(40))' is not an HTTP header name (letters, digits, '-', up to 64)")
        }
        guard !["content-type", "content-length", "host"].contains(text.lowercased()) else {
            throw InvalidValue("header '\(text)' is set by the gateway")
        }
        return text
    }

    /// A header value: printable ASCII (tabs and spaces allowed), at most 1,024 bytes. The
    /// error never quotes it: values are usually secrets.
    static func headerValue(_ text: String) throws(InvalidValue) -> String {
        guard text.utf8.count <= 1024, text.utf8.allSatisfy({ ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x09 }) else {
            throw InvalidValue("header value must be printable ASCII, at most 1024 bytes (value not shown)")
        }
        return text
    }
}
