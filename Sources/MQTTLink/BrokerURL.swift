import Foundation

/// The parts of `scheme://[user[:password]@]host[:port][/]`, split by hand.
///
/// Not `URLComponents`: reading its host runs ICU's IDNA conversion, which maps about
/// 1.2 MB of ICU into the daemon for a broker address that is ASCII anyway. Host names
/// here are ASCII (an internationalised name is given in its `xn--` form); user and
/// password may be percent-encoded, as in any URL.
struct BrokerURL: Equatable {
    var scheme: String
    var user: String?
    var password: String?
    var host: String
    var port: Int?

    /// `shown` is the URL as errors may quote it (password redacted).
    static func parse(_ url: String, shown: String) throws(MQTTError) -> BrokerURL {
        func invalid(_ reason: String) -> MQTTError { .invalidURL(url: shown, reason: reason) }
        guard let separator = url.range(of: "://") else {
            throw invalid("missing scheme; expected mqtt:// or mqtts://")
        }
        let scheme = String(url[..<separator.lowerBound])
        guard let first = scheme.unicodeScalars.first, first.isASCIILetter,
            scheme.unicodeScalars.allSatisfy({
                $0.isASCIILetter || $0.isASCIIDigit || "+-.".unicodeScalars.contains($0)
            })
        else { throw invalid("missing scheme; expected mqtt:// or mqtts://") }
        let rest = url[separator.upperBound...]
        // As RFC 3986 reads it: the authority ends at the first '/', '?' or '#'.
        let authorityEnd = rest.firstIndex(where: { "/?#".contains($0) }) ?? rest.endIndex
        let tail = rest[authorityEnd...]
        if tail.contains("@") {
            // A password holding one of those: the rest of it must not be quoted.
            throw invalid(
                "the user name or password holds '/', '?' or '#': percent-encode them (%2F, %3F, %23), "
                    + "or set mqtt.password")
        }
        if tail.contains("?") || tail.contains("#") {
            throw invalid("query and fragment are not supported")
        }
        guard tail.isEmpty || tail == "/" else { throw invalid("unexpected path \"\(tail.prefix(40))\"") }
        var authority = rest[..<authorityEnd]
        var user: String?
        var password: String?
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            authority = authority[authority.index(after: at)...]
            if let colon = userInfo.firstIndex(of: ":") {
                user = try decode(userInfo[..<colon], what: "username", invalid)
                password = try decode(userInfo[userInfo.index(after: colon)...], what: "password", invalid)
            } else {
                user = try decode(userInfo, what: "username", invalid)
            }
        }
        let (host, port) = try hostAndPort(authority, invalid)
        return BrokerURL(scheme: scheme, user: user, password: password, host: host, port: port)
    }

    private static func hostAndPort(_ authority: Substring, _ invalid: (String) -> MQTTError) throws(MQTTError)
        -> (String, Int?)
    {
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            // An IPv6 literal: [::1] or [::1]:1883.
            guard let close = authority.firstIndex(of: "]") else { throw invalid("unclosed [ in the host") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw invalid("unexpected text after the host") }
                portText = after.dropFirst()
            }
            guard host.unicodeScalars.allSatisfy({ $0.properties.isASCIIHexDigit || ":.".unicodeScalars.contains($0) })
            else { throw invalid("\"[\(host)]\" is not an IPv6 address") }
        } else {
            if let colon = authority.lastIndex(of: ":") {
                host = authority[..<colon]
                portText = authority[authority.index(after: colon)...]
            } else {
                host = authority
            }
            guard
                host.unicodeScalars.allSatisfy({
                    $0.isASCIILetter || $0.isASCIIDigit || "-._".unicodeScalars.contains($0)
                })
            else {
                throw invalid(
                    "host \"\(host)\" may hold only letters, digits, '-', '.' and '_' "
                        + "(write a non-ASCII name in its xn-- form, an IPv6 address in [ ])")
            }
        }
        guard !host.isEmpty else { throw invalid("missing host") }
        guard let portText, !portText.isEmpty else { return (String(host), nil) }
        guard portText.utf8.count <= 5, portText.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let port = Int(portText)
        else { throw invalid("port \"\(portText)\" is not a number") }
        guard (1...65535).contains(port) else { throw invalid("port \(port) is outside 1–65535") }
        return (String(host), port)
    }

    /// Percent-decodes a user or password; malformed escapes and non-UTF-8 results are refused.
    private static func decode(_ text: Substring, what: String, _ invalid: (String) -> MQTTError) throws(MQTTError)
        -> String
    {
        guard let decoded = String(text).removingPercentEncoding else {
            throw invalid("the \(what) has a malformed %-escape or is not UTF-8 once %-decoded")
        }
        return decoded
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
