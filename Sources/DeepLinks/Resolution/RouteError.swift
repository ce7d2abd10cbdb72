import TuyaCore

/// Why a deep link cannot be resolved at all. A link that can be resolved but waits for
/// something (a device to pair, a session to end) is a `RouteResolution.gated`, not an
/// error.
///
/// Messages quote at most a short, already-screened part of the input: by the time a
/// piece of the URL is named here it is known to be printable ASCII.
public enum RouteError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The text is not a URL this engine accepts; nothing about its route can be trusted.
    case malformed(MalformedReason)
    /// A well-formed link to a path no route in the table matches.
    case unknownRoute(path: String)
    /// The route is known but one of its parameters is missing, badly formed, or unknown
    /// to the current context (a preset that does not exist, a maintenance type the
    /// device's profile does not declare). `field` is the parameter's name in the URL.
    case validationFailed(field: String, reason: ValidationReason)

    /// What is wrong with the text of a URL. `offset` is a byte offset into its UTF-8.
    public enum MalformedReason: Hashable, Sendable {
        case tooLong(bytes: Int, limit: Int)
        case controlCharacter(offset: Int)
        case nonASCII(offset: Int)
        case notUTF8(offset: Int)
        case missingScheme
        case unknownScheme(String)
        case missingAuthority
        case missingHost
        case userInfo(offset: Int)
        case port(offset: Int)
        case unknownHost(String)
        case fragment(offset: Int)
        case invalidCharacter(offset: Int)
        case badPercentEncoding(offset: Int)
        case emptyPathSegment(offset: Int)
        case dotSegment(offset: Int)
        case emptyQueryItem(offset: Int)
        case queryItemWithoutValue(name: String)
        case duplicateQueryItem(name: String)
        case unexpectedParameter(name: String, route: RouteName)
    }

    /// What is wrong with one parameter's value.
    public enum ValidationReason: Hashable, Sendable {
        case missing
        /// The value does not have the parameter's form; the text says what the form is.
        case badFormat(expected: String)
        case outOfRange(ClosedRange<Int>)
        case unknownPreset(known: [String])
        case unknownMaintenanceType(device: DeviceID, known: [String])
    }

    public var description: String {
        switch self {
        case .malformed(let reason): "malformed link: \(reason)"
        case .unknownRoute(let path): "no route for '\(path)' (known: \(RouteTable.standard.summary))"
        case .validationFailed(let field, let reason): "link parameter '\(field)': \(reason)"
        }
    }
}

extension RouteError.MalformedReason: CustomStringConvertible {
    public var description: String {
        switch self {
        case .tooLong(let bytes, let limit): "\(bytes) bytes, links are limited to \(limit)"
        case .controlCharacter(let offset): "control character at byte \(offset)"
        case .nonASCII(let offset): "non-ASCII character at byte \(offset); percent-encode it"
        case .notUTF8(let offset): "bytes at \(offset) are not UTF-8"
        case .missingScheme: "no scheme; links start with youll:// or https://"
        case .unknownScheme(let scheme): "unknown scheme '\(scheme)'; links start with youll:// or https://"
        case .missingAuthority: "'//' must follow the scheme, as in youll://tuya/pair"
        case .missingHost: "no host after '//'"
        case .userInfo(let offset): "user information ('@' at byte \(offset)) is not accepted"
        case .port(let offset): "a port (':' at byte \(offset)) is not accepted"
        case .unknownHost(let host):
            "https host '\(host)' is not one of the universal-link hosts in the configuration"
        case .fragment(let offset): "a fragment ('#' at byte \(offset)) is not accepted"
        case .invalidCharacter(let offset): "character at byte \(offset) is not allowed there; percent-encode it"
        case .badPercentEncoding(let offset): "'%' at byte \(offset) is not followed by two hex digits"
        case .emptyPathSegment(let offset): "empty path segment at byte \(offset)"
        case .dotSegment(let offset): "'.' or '..' path segment at byte \(offset)"
        case .emptyQueryItem(let offset): "empty query item at byte \(offset)"
        case .queryItemWithoutValue(let name): "query item '\(name)' has no '=value'"
        case .duplicateQueryItem(let name): "query item '\(name)' appears more than once"
        case .unexpectedParameter(let name, let route): "'\(name)' is not a parameter of \(route.rawValue)"
        }
    }
}

extension RouteError.ValidationReason: CustomStringConvertible {
    public var description: String {
        switch self {
        case .missing: "missing"
        case .badFormat(let expected): "expected \(expected)"
        case .outOfRange(let range): "must be \(range.lowerBound)–\(range.upperBound)"
        case .unknownPreset(let known):
            "no such preset (configured: \(known.isEmpty ? "none" : known.joined(separator: ", ")))"
        case .unknownMaintenanceType(let device, let known):
            "\(device)'s profile declares no such maintenance type (it has: \(known.isEmpty ? "none" : known.joined(separator: ", ")))"
        }
    }
}
