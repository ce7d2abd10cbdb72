import TuyaCore

/// The strict parser from a link's UTF-8 bytes to a `RouteRequest`. It accepts a subset
/// of RFC 3986 and refuses the rest with a `RouteError.malformed` reason, without
/// Foundation's URL leniency:
///
/// - at most 2,048 bytes; printable ASCII only (no control characters, no raw
///   non-ASCII: percent-encode it; bytes that are not UTF-8 are named as such);
/// - scheme `youll` or `https` (any case), then `//` and a host of letters, digits, `-`
///   and `.` (any case); no user information, no port; an https host must be one of the
///   context's universal-link hosts;
/// - path segments of RFC 3986 `pchar`s with well-formed percent-encoding; no empty
///   segments and no `.` or `..` (a path of just `/` is the empty path);
/// - query items `name=value` joined by `&`: names are literal parameter names of the
///   matched route, each at most once; values are percent-decoded, must be UTF-8 and
///   must not contain control characters; a raw `=` inside a value is refused (`%3D`),
///   and `+` is a literal plus, not a space;
/// - no fragment: links built by `url(for:)` never carry one, and a fragment is never
///   part of what a link asks for, so one is a sign the link was tampered with or
///   mangled.
///
/// The route is matched on the decoded path before the query is read, so the query's
/// items are judged against that route's parameters.
enum LinkParser {
    static let maximumBytes = 2048

    static func request(
        _ bytes: UnsafeBufferPointer<UInt8>, table: RouteTable, context: RouteContext, matched: inout RouteName?
    ) throws(RouteError) -> RouteRequest {
        guard bytes.count <= maximumBytes else {
            throw .malformed(.tooLong(bytes: bytes.count, limit: maximumBytes))
        }
        try screenCharacters(bytes)
        let url = try scan(bytes, context: context)
        guard let route = match(url, in: bytes, table: table) else {
            throw .unknownRoute(path: url.displayPath(bytes))
        }
        matched = route.name
        var request = RouteRequest(route: route.name)
        var cursor = SegmentCursor(url)
        for segment in route.path {
            guard let range = cursor.next(in: bytes) else { break }
            if case .parameter(let parameter) = segment {
                request[parameter] = try PercentCoding.decode(bytes, range)
            }
        }
        try readQuery(url.query, of: bytes, for: route, into: &request)
        return request
    }

    /// Printable ASCII only; names non-UTF-8 separately from UTF-8 that is not ASCII.
    private static func screenCharacters(_ bytes: UnsafeBufferPointer<UInt8>) throws(RouteError) {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x20 || byte == 0x7F { throw .malformed(.controlCharacter(offset: index)) }
            if byte >= 0x80 {
                throw UTF8Sequence.length(bytes, at: index) == nil
                    ? .malformed(.notUTF8(offset: index)) : .malformed(.nonASCII(offset: index))
            }
            index += 1
        }
    }

    /// Splits the URL into its parts and checks each part's characters.
    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>, context: RouteContext) throws(RouteError)
        -> ScannedURL
    {
        let count = bytes.count
        let (isCustomScheme, hostStart) = try scanScheme(bytes)
        var index = hostStart
        while index < count, !isAuthorityEnd(bytes[index]) { index += 1 }
        let host = hostStart..<index
        try checkHost(bytes, host)
        if !isCustomScheme, !context.isUniversalLinkHost(UnsafeBufferPointer(rebasing: bytes[host])) {
            throw .malformed(.unknownHost(String(decoding: bytes[host].prefix(64), as: UTF8.self)))
        }

        let path = try scanPath(bytes, from: index)
        index = path.end
        var query: Range<Int>?
        if index < count, bytes[index] == UInt8(ascii: "?") {
            index += 1
            let queryStart = index
            while index < count, bytes[index] != UInt8(ascii: "#") {
                index = try advance(over: bytes[index], at: index, in: bytes, allowing: isQueryByte)
            }
            query = queryStart..<index
        }
        if index < count { throw .malformed(.fragment(offset: index)) }
        return ScannedURL(isCustomScheme: isCustomScheme, host: host, path: path.range, query: query)
    }

    /// The scheme and the `//` after it: whether the scheme is `youll` (else `https`), and
    /// where the authority starts.
    @inline(__always)
    private static func scanScheme(_ bytes: UnsafeBufferPointer<UInt8>) throws(RouteError)
        -> (isCustomScheme: Bool, authorityStart: Int)
    {
        let count = bytes.count
        var index = 0
        guard count > 0, ASCII.isAlpha(bytes[0]) else { throw .malformed(.missingScheme) }
        while index < count, isSchemeByte(bytes[index]) { index += 1 }
        guard index < count, bytes[index] == UInt8(ascii: ":") else { throw .malformed(.missingScheme) }
        let scheme = UnsafeBufferPointer(rebasing: bytes[0..<index])
        let isCustomScheme: Bool
        if equalsFoldingCase(scheme, "youll") {
            isCustomScheme = true
        } else if equalsFoldingCase(scheme, "https") {
            isCustomScheme = false
        } else {
            throw .malformed(.unknownScheme(String(decoding: scheme.prefix(32), as: UTF8.self)))
        }
        index += 1
        guard index + 1 < count, bytes[index] == UInt8(ascii: "/"), bytes[index + 1] == UInt8(ascii: "/") else {
            throw .malformed(.missingAuthority)
        }
        return (isCustomScheme, index + 2)
    }

    /// The path from `pathStart` up to a `?`, a `#` or the end, each segment checked; `end`
    /// is where it stops. `/` alone is the empty path.
    @inline(__always)
    private static func scanPath(_ bytes: UnsafeBufferPointer<UInt8>, from pathStart: Int) throws(RouteError)
        -> (range: Range<Int>, end: Int)
    {
        var index = pathStart
        var segmentStart = index + 1
        while index < bytes.count, bytes[index] != UInt8(ascii: "?"), bytes[index] != UInt8(ascii: "#") {
            let byte = bytes[index]
            if byte == UInt8(ascii: "/") {
                if index > pathStart { try checkSegment(bytes, segmentStart..<index) }
                segmentStart = index + 1
                index += 1
            } else {
                index = try advance(over: byte, at: index, in: bytes, allowing: isPathByte)
            }
        }
        var path = pathStart..<index
        if path.count == 1 {
            path = index..<index  // "/" alone is the empty path
        } else if !path.isEmpty {
            try checkSegment(bytes, segmentStart..<index)
        }
        return (path, index)
    }

    /// Steps over one byte, or over a whole `%XX` triplet.
    @inline(__always)
    private static func advance(
        over byte: UInt8, at index: Int, in bytes: UnsafeBufferPointer<UInt8>, allowing allowed: (UInt8) -> Bool
    ) throws(RouteError) -> Int {
        if byte == UInt8(ascii: "%") {
            guard index + 2 < bytes.count, ASCII.hexValue(bytes[index + 1]) != nil,
                ASCII.hexValue(bytes[index + 2]) != nil
            else { throw .malformed(.badPercentEncoding(offset: index)) }
            return index + 3
        }
        guard allowed(byte) else { throw .malformed(.invalidCharacter(offset: index)) }
        return index + 1
    }

    private static func checkHost(_ bytes: UnsafeBufferPointer<UInt8>, _ host: Range<Int>) throws(RouteError) {
        guard !host.isEmpty else { throw .malformed(.missingHost) }
        if let at = firstIndex(of: UInt8(ascii: "@"), in: host, of: bytes) { throw .malformed(.userInfo(offset: at)) }
        var index = host.lowerBound
        while index < host.upperBound {
            let byte = bytes[index]
            if byte == UInt8(ascii: ":") { throw .malformed(.port(offset: index)) }
            guard ASCII.isAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") else {
                throw .malformed(.invalidCharacter(offset: index))
            }
            index += 1
        }
    }

    private static func checkSegment(_ bytes: UnsafeBufferPointer<UInt8>, _ segment: Range<Int>) throws(RouteError) {
        guard !segment.isEmpty else { throw .malformed(.emptyPathSegment(offset: segment.lowerBound)) }
        if segment.count <= 2, bytes[segment].allSatisfy({ $0 == UInt8(ascii: ".") }) {
            throw .malformed(.dotSegment(offset: segment.lowerBound))
        }
    }

    private static func match(_ url: ScannedURL, in bytes: UnsafeBufferPointer<UInt8>, table: RouteTable) -> Route? {
        routes: for route in table.routes {
            var cursor = SegmentCursor(url)
            for segment in route.path {
                let isHost = cursor.isAtHost
                guard let range = cursor.next(in: bytes) else { continue routes }
                if case .literal(let text) = segment,
                    !PercentCoding.decoded(bytes, range, equals: text, foldingCase: isHost)
                {
                    continue routes
                }
            }
            if cursor.next(in: bytes) == nil { return route }
        }
        return nil
    }

    private static func readQuery(
        _ query: Range<Int>?, of bytes: UnsafeBufferPointer<UInt8>, for route: Route, into request: inout RouteRequest
    ) throws(RouteError) {
        guard let query else { return }
        var itemStart = query.lowerBound
        while true {
            var itemEnd = itemStart
            while itemEnd < query.upperBound, bytes[itemEnd] != UInt8(ascii: "&") { itemEnd += 1 }
            try readItem(itemStart..<itemEnd, of: bytes, for: route, into: &request)
            guard itemEnd < query.upperBound else { return }
            itemStart = itemEnd + 1
        }
    }

    private static func readItem(
        _ item: Range<Int>, of bytes: UnsafeBufferPointer<UInt8>, for route: Route, into request: inout RouteRequest
    ) throws(RouteError) {
        guard !item.isEmpty else { throw .malformed(.emptyQueryItem(offset: item.lowerBound)) }
        let equals = firstIndex(of: UInt8(ascii: "="), in: item, of: bytes)
        let name = item.lowerBound..<(equals ?? item.upperBound)
        let nameText = { String(decoding: bytes[name].prefix(32), as: UTF8.self) }
        guard let equals else { throw .malformed(.queryItemWithoutValue(name: nameText())) }
        let value = (equals + 1)..<item.upperBound
        if let second = firstIndex(of: UInt8(ascii: "="), in: value, of: bytes) {
            throw .malformed(.invalidCharacter(offset: second))
        }
        guard
            let parameter = route.query.first(where: { parameter in
                PercentCoding.raw(bytes, name, equals: parameter.rawValue)
            })
        else { throw .malformed(.unexpectedParameter(name: nameText(), route: route.name)) }
        guard request[parameter] == nil else { throw .malformed(.duplicateQueryItem(name: parameter.rawValue)) }
        request[parameter] = try PercentCoding.decode(bytes, value)
    }

    @inline(__always)
    private static func firstIndex(of byte: UInt8, in range: Range<Int>, of bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = range.lowerBound
        while index < range.upperBound {
            if bytes[index] == byte { return index }
            index += 1
        }
        return nil
    }

    /// RFC 3986 scheme characters after the first letter.
    @inline(__always) private static func isSchemeByte(_ byte: UInt8) -> Bool {
        ASCII.isAlphanumeric(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: ".")
    }

    @inline(__always) private static func isAuthorityEnd(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
    }

    /// RFC 3986 `pchar` without `%` (handled as a triplet): unreserved, sub-delims, `:`, `@`.
    @inline(__always) private static func isPathByte(_ byte: UInt8) -> Bool {
        if ASCII.isUnreserved(byte) { return true }
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"):
            return true
        default:
            return false
        }
    }

    /// RFC 3986 `query`: `pchar`, `/` and `?`.
    @inline(__always) private static func isQueryByte(_ byte: UInt8) -> Bool {
        isPathByte(byte) || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?")
    }

    private static func equalsFoldingCase(_ bytes: UnsafeBufferPointer<UInt8>, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        return lowercase.withUTF8Buffer { expected in
            zip(bytes, expected).allSatisfy { ASCII.lowercased($0) == $1 }
        }
    }
}

/// Where the parts of a scanned URL are, as byte ranges.
struct ScannedURL {
    var isCustomScheme: Bool
    var host: Range<Int>
    /// Empty, or starts with `/`.
    var path: Range<Int>
    var query: Range<Int>?

    /// The route path as given, for `RouteError.unknownRoute` (already printable ASCII).
    func displayPath(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var text = isCustomScheme ? String(decoding: bytes[host], as: UTF8.self) : ""
        text += String(decoding: bytes[path], as: UTF8.self)
        return text.utf8.count > 100 ? String(decoding: text.utf8.prefix(100), as: UTF8.self) + "…" : text
    }
}

/// Walks a scanned URL's route segments: for `youll://` the host first, then the path's
/// segments (already checked to be non-empty).
struct SegmentCursor {
    private var pendingHost: Range<Int>?
    private var position: Int
    private let end: Int

    init(_ url: ScannedURL) {
        pendingHost = url.isCustomScheme ? url.host : nil
        position = url.path.lowerBound
        end = url.path.upperBound
    }

    var isAtHost: Bool { pendingHost != nil }

    mutating func next(in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        if let host = pendingHost {
            pendingHost = nil
            return host
        }
        guard position < end else { return nil }
        let start = position + 1  // past the "/"
        var index = start
        while index < end, bytes[index] != UInt8(ascii: "/") { index += 1 }
        position = index
        return start..<index
    }
}
