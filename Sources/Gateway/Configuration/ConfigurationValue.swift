import BLELink
import Foundation
import MQTTLink

/// A value that failed its check; the caller adds where it came from (key path and line, or variable).
struct InvalidValue: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}

/// The checks shared by the YAML file and the environment, from text to a typed value.
///
/// Pure. Reasons never echo a password: the broker URL is shown with any password as `***`.
enum ConfigurationValue {
    static func brokerAddress(_ text: String) throws(InvalidValue) -> GatewayConfiguration.BrokerAddress {
        let shown = MQTTConfiguration.redacting(text)
        guard let schemeEnd = text.range(of: "://") else {
            throw InvalidValue("'\(shown.prefix(80))' is not a broker URL; write mqtt://host:1883 or mqtts://host:8883")
        }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "mqtt" || scheme == "mqtts" else {
            throw InvalidValue("unsupported scheme '\(scheme.prefix(20))' in \(shown.prefix(80)); use mqtt or mqtts")
        }
        let parsed: MQTTConfiguration
        do {
            parsed = try MQTTConfiguration(url: text)
        } catch {
            guard case .invalidURL(let url, let reason) = error else { throw InvalidValue("\(error)") }
            throw InvalidValue("\(reason) in \(url.prefix(80))")
        }
        guard parsed.username == nil, parsed.password == nil, !text.contains("@") else {
            throw InvalidValue(
                "credentials in the URL \(shown.prefix(80)) are not accepted; set mqtt.username and mqtt.password "
                    + "(or YOULL_MQTT_PASSWORD) so the URL can be logged")
        }
        return GatewayConfiguration.BrokerAddress(usesTLS: scheme == "mqtts", host: parsed.host, port: parsed.port)
    }

    /// An MQTT topic prefix: publishable, so no wildcards; a prefix, so no empty levels at either end.
    static func baseTopic(_ text: String, what: String = "base topic") throws(InvalidValue) -> String {
        guard !text.isEmpty else { throw InvalidValue("\(what) must not be empty") }
        guard text.count <= 128 else { throw InvalidValue("\(what) is \(text.count) characters; at most 128") }
        if let wildcard = text.first(where: { $0 == "+" || $0 == "#" }) {
            throw InvalidValue("\(what) '\(text)' contains the MQTT wildcard '\(wildcard)'")
        }
        guard !text.hasPrefix("/"), !text.hasSuffix("/") else {
            throw InvalidValue("\(what) '\(text)' must not start or end with '/'")
        }
        guard !text.contains("//") else { throw InvalidValue("\(what) '\(text)' has an empty level ('//')") }
        guard !text.hasPrefix("$") else {
            throw InvalidValue("\(what) '\(text)' must not start with '$' (reserved for broker topics)")
        }
        guard text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else {
            throw InvalidValue("\(what) must not contain control characters")
        }
        return text
    }

    static func absolutePath(_ text: String) throws(InvalidValue) -> String {
        guard text.hasPrefix("/") else {
            throw InvalidValue("'\(text.prefix(80))' is not an absolute path; write it from '/' (~ is not expanded)")
        }
        guard !text.utf8.contains(0) else { throw InvalidValue("path contains a NUL byte") }
        return text
    }

    /// `300ms`, `5s`, `2m`, `1h`: a whole number and a unit. A bare number is refused because
    /// its unit would be a guess.
    static func duration(
        _ text: String, allowZero: Bool = false, minimum: Duration? = nil, maximum: Duration
    ) throws(InvalidValue) -> Duration {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let digits = trimmed.prefix(while: { $0.isASCII && $0.isNumber })
        let unit = trimmed.dropFirst(digits.count)
        if trimmed.hasPrefix("-") {
            throw InvalidValue("duration '\(text.prefix(40))' is negative; durations must be positive")
        }
        guard !digits.isEmpty, digits.count <= 9, let amount = Int64(digits) else {
            throw InvalidValue("expected a duration such as 300ms, 5s, 2m or 1h, found '\(text.prefix(40))'")
        }
        let value: Duration
        switch unit {
        case "ms": value = .milliseconds(amount)
        case "s": value = .seconds(amount)
        case "m": value = .seconds(amount * 60)
        case "h": value = .seconds(amount * 3600)
        case "":
            throw InvalidValue("duration '\(text.prefix(40))' needs a unit: ms, s, m or h (for example \(amount)s)")
        default:
            throw InvalidValue("unknown unit '\(unit.prefix(10))' in '\(text.prefix(40))'; use ms, s, m or h")
        }
        guard allowZero || value > .zero else { throw InvalidValue("duration must be greater than zero") }
        guard value <= maximum else {
            throw InvalidValue("duration \(text) is longer than the maximum \(maximum.roundedText)")
        }
        if let minimum, value < minimum {
            throw InvalidValue("duration \(text) is shorter than the minimum \(minimum.roundedText)")
        }
        return value
    }

    /// `host:port` or `[v6]:port`.
    static func listenAddress(_ text: String) throws(InvalidValue) -> GatewayConfiguration.ListenAddress {
        let host: Substring
        let port: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw InvalidValue("expected [address]:port, found '\(text.prefix(60))'") }
            port = rest.dropFirst()
        } else if let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") {
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        } else {
            throw InvalidValue("expected host:port such as 127.0.0.1:9464, found '\(text.prefix(60))'")
        }
        guard !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0 == "/" }) else {
            throw InvalidValue("missing or malformed host in '\(text.prefix(60))'")
        }
        guard port.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(port), (1...65535).contains(number)
        else {
            throw InvalidValue("port '\(port.prefix(10))' must be a number in 1–65535")
        }
        return GatewayConfiguration.ListenAddress(host: String(host), port: number)
    }

    /// An https host name for universal links: DNS labels, at least two, lower-cased.
    static func hostName(_ text: String) throws(InvalidValue) -> String {
        if text.contains("://") || text.contains("/") {
            throw InvalidValue("write the host name only (example.com), not a URL: '\(text.prefix(80))'")
        }
        let name = text.lowercased()
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        let validLabels = labels.allSatisfy { label in
            (1...63).contains(label.utf8.count) && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
        }
        guard labels.count >= 2, name.utf8.count <= 253, validLabels else {
            throw InvalidValue(
                "'\(text.prefix(80))' is not a host name; expected letters, digits and '-' in dot-separated labels")
        }
        return name
    }

    static func bluetoothAdapter(_ text: String) throws(InvalidValue) -> String {
        let number = text.dropFirst(3)
        guard text.hasPrefix("hci"), !number.isEmpty, number.count <= 3,
            number.allSatisfy({ $0.isASCII && $0.isNumber })
        else {
            throw InvalidValue("adapter '\(text.prefix(40))' must be a BlueZ adapter name such as hci0")
        }
        return text
    }

    /// `bluez | hci-user:hci0 | h4:/dev/ttyAMA0[,115200] | h4-tcp:HOST:PORT | h4-unix:PATH`.
    static func bleTransport(_ text: String) throws(InvalidValue) -> BLETransportSetting {
        do {
            return try BLETransportSetting(parsing: text)
        } catch {
            throw InvalidValue(error.description)
        }
    }

    static func clientID(_ text: String) throws(InvalidValue) -> String {
        guard (1...128).contains(text.utf8.count), text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw InvalidValue("client id must be 1–128 printable ASCII characters without spaces")
        }
        return text
    }

    static func choice<Value: RawRepresentable & CaseIterable>(
        _ text: String, as type: Value.Type, what: String
    ) throws(InvalidValue) -> Value where Value.RawValue == String {
        guard let value = Value(rawValue: text) else {
            let choices = Value.allCases.map(\.rawValue)
            throw InvalidValue(
                "unknown \(what) '\(text.prefix(40))'\(KeySuggestion.hint(for: text, among: choices)); expected one of: "
                    + choices.joined(separator: ", "))
        }
        return value
    }

    /// `auto`, or a switch (`on`/`off`, `true`/`false`, `yes`/`no`).
    static func bleMode(_ text: String) throws(InvalidValue) -> GatewayConfiguration.BLE.Mode {
        if let flag = ConfigurationDraft.switchValue(text) { return flag ? .on : .off }
        return try choice(text, as: GatewayConfiguration.BLE.Mode.self, what: "BLE mode")
    }
}
