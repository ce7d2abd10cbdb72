import TuyaCore

/// The one routing engine behind every door: `youll://` links, https universal links on
/// the configured hosts, and in-app requests resolve through the same route table.
///
/// Pure: it reads the `RouteContext` it is given and nothing else.
public struct RoutingEngine: Hashable, Sendable {
    public var table: RouteTable

    public init(table: RouteTable = .standard) {
        self.table = table
    }

    /// Parses and resolves an untrusted link. Throws only when nothing can be resolved;
    /// a link that must wait for something is `.gated`. See `LinkParser` for exactly
    /// which URLs are accepted.
    public func resolve(url: String, context: RouteContext) throws(RouteError) -> RouteResolution {
        var route: RouteName?
        return try resolveTracking(url: url, context: context, route: &route)
    }

    /// `resolve(url:context:)` for raw bytes (a link read from a file or socket), so bytes
    /// that are not UTF-8 are reported as such instead of being repaired first.
    public func resolve(utf8 bytes: some Collection<UInt8>, context: RouteContext) throws(RouteError)
        -> RouteResolution
    {
        var route: RouteName?
        let request = try request(utf8: bytes, context: context, route: &route)
        return try resolve(request: request, context: context)
    }

    /// Parses a link into the request it makes without judging its values against the
    /// context (except for the https host, which decides whether the link is ours).
    public func request(url: String, context: RouteContext) throws(RouteError) -> RouteRequest {
        var route: RouteName?
        return try request(url: url, context: context, route: &route)
    }

    /// Resolves a request: checks each parameter's form, then the context checks, then
    /// the preconditions in order (the first that fails is the gate).
    public func resolve(request: RouteRequest, context: RouteContext) throws(RouteError) -> RouteResolution {
        var request = request
        if let raw = request[.device], let id = context.pairedDevice(named: raw) { request[.device] = id.rawValue }
        guard let route = table.route(named: request.route) else {
            throw .unknownRoute(path: request.route.rawValue)
        }
        for parameter in RouteParameter.allCases where request[parameter] != nil && !route.takes(parameter) {
            throw .malformed(.unexpectedParameter(name: parameter.rawValue, route: route.name))
        }
        let values = try ParameterValues(request, route: route)
        for check in route.checks {
            try values.verify(check, context: context)
        }
        for rule in route.preconditions {
            if let unmet = values.unmet(rule, context: context) {
                return .gated(unmet, resume: request)
            }
        }
        return .proceed(try values.destination(of: route.name))
    }

    /// The `youll://` link that resolves to `destination`: `resolve(url: url(for: d))` is
    /// `.proceed(d)` in any context that satisfies `d`'s checks and preconditions.
    /// Values are percent-encoded outside RFC 3986 `unreserved`.
    public func url(for destination: DeeplinkDestination) -> String {
        link(for: RouteRequest(destination), prefix: "youll://")
    }

    /// The https universal link on `host` that resolves to `destination`, for a context
    /// whose `universalLinkHosts` contains `host`.
    public func universalLink(for destination: DeeplinkDestination, host: String) -> String {
        link(for: RouteRequest(destination), prefix: "https://" + host + "/")
    }

    // MARK: - Internals shared with the dispatcher

    /// `resolve(url:context:)` that also reports the route it matched, if any, for counts.
    func resolveTracking(url: String, context: RouteContext, route: inout RouteName?) throws(RouteError)
        -> RouteResolution
    {
        let request = try request(url: url, context: context, route: &route)
        return try resolve(request: request, context: context)
    }

    private func request(url: String, context: RouteContext, route: inout RouteName?) throws(RouteError)
        -> RouteRequest
    {
        let count = url.utf8.count
        guard count <= LinkParser.maximumBytes else {
            throw .malformed(.tooLong(bytes: count, limit: LinkParser.maximumBytes))
        }
        if let result = url.utf8.withContiguousStorageIfAvailable({ bytes in
            parse(bytes, context: context, route: &route)
        }) {
            return try result.get()
        }
        return try request(utf8: Array(url.utf8), context: context, route: &route)
    }

    private func request(utf8 bytes: some Collection<UInt8>, context: RouteContext, route: inout RouteName?)
        throws(RouteError) -> RouteRequest
    {
        guard bytes.count <= LinkParser.maximumBytes else {
            throw .malformed(.tooLong(bytes: bytes.count, limit: LinkParser.maximumBytes))
        }
        if let result = bytes.withContiguousStorageIfAvailable({ buffer in
            parse(buffer, context: context, route: &route)
        }) {
            return try result.get()
        }
        return try Array(bytes).withUnsafeBufferPointer { buffer in
            parse(buffer, context: context, route: &route)
        }.get()
    }

    private func parse(_ bytes: UnsafeBufferPointer<UInt8>, context: RouteContext, route: inout RouteName?)
        -> Result<RouteRequest, RouteError>
    {
        do throws(RouteError) {
            return .success(try LinkParser.request(bytes, table: table, context: context, matched: &route))
        } catch {
            return .failure(error)
        }
    }

    private func link(for request: RouteRequest, prefix: String) -> String {
        guard let route = table.route(named: request.route) else { return prefix + request.route.rawValue }
        var output: [UInt8] = Array(prefix.utf8)
        output.reserveCapacity(prefix.utf8.count + 96)
        for (position, segment) in route.path.enumerated() {
            if position > 0 { output.append(UInt8(ascii: "/")) }
            switch segment {
            case .literal(let text): PercentCoding.encode(text, into: &output)
            case .parameter(let parameter): PercentCoding.encode(request[parameter] ?? "", into: &output)
            }
        }
        for (position, parameter) in route.query.enumerated() {
            output.append(position == 0 ? UInt8(ascii: "?") : UInt8(ascii: "&"))
            output.append(contentsOf: parameter.rawValue.utf8)
            output.append(UInt8(ascii: "="))
            PercentCoding.encode(request[parameter] ?? "", into: &output)
        }
        return String(decoding: output, as: UTF8.self)
    }
}
