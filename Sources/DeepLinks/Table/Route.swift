/// The name of a route: which `DeeplinkDestination` case it resolves to. The raw value
/// is its pattern without parameters, used in messages and as a metrics label.
public enum RouteName: String, CaseIterable, Hashable, Sendable, Comparable {
    case tuyaMaintenance = "tuya/maintenance"
    case tuyaDevice = "tuya/devices"
    case tuyaPair = "tuya/pair"
    case timer = "timer"
    case timerSession = "timer/sessions"

    public static func < (lhs: RouteName, rhs: RouteName) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One path segment of a route's pattern.
public enum RouteSegment: Hashable, Sendable {
    /// Matches exactly this text (after percent-decoding).
    case literal(String)
    /// Takes the whole (decoded) segment as the parameter's value.
    case parameter(RouteParameter)
}

/// A check against the context that does not hold the link back but refuses it: the
/// thing the link names does not exist.
public enum ContextCheck: Hashable, Sendable {
    /// The parameter names a preset of the configuration.
    case presetExists(RouteParameter)
    /// The `type` parameter is a maintenance type declared by the profile of the device
    /// named by `device`. Checked once that device is paired; before that, the route's
    /// `devicePaired` precondition gates it.
    case maintenanceTypeKnown(type: RouteParameter, device: RouteParameter)
}

/// Something that must hold before a route proceeds. When it does not, the link is
/// gated and can resume once it holds.
public enum PreconditionRule: Hashable, Sendable {
    /// The device named by the parameter is paired.
    case devicePaired(RouteParameter)
    /// No timer session is running.
    case noSessionRunning
}

/// One row of the route table: a pattern with typed parameters, context checks and
/// preconditions (evaluated in order; the first that fails is the gate).
///
/// For `youll://` links the first path segment is the URL's host (`youll://tuya/pair`);
/// for https universal links it is the first segment of the path
/// (`https://<host>/tuya/pair`). Both are matched against the same `path`.
public struct Route: Hashable, Sendable {
    public var name: RouteName
    public var path: [RouteSegment]
    /// Query parameters, all required, in the order `url(for:)` writes them.
    public var query: [RouteParameter]
    public var checks: [ContextCheck]
    public var preconditions: [PreconditionRule]

    public init(
        name: RouteName, path: [RouteSegment], query: [RouteParameter] = [], checks: [ContextCheck] = [],
        preconditions: [PreconditionRule] = []
    ) {
        self.name = name
        self.path = path
        self.query = query
        self.checks = checks
        self.preconditions = preconditions
    }

    /// Whether the route takes this parameter, in its path or its query.
    public func takes(_ parameter: RouteParameter) -> Bool {
        query.contains(parameter) || path.contains(.parameter(parameter))
    }

    /// The pattern as written in `../shared/ARCHITECTURE.md`: `tuya/devices/<device>`.
    public var pattern: String {
        let segments = path.map { segment in
            switch segment {
            case .literal(let text): text
            case .parameter(let parameter): "<\(parameter.rawValue)>"
            }
        }
        let items = query.map { "\($0.rawValue)=<\($0.rawValue)>" }
        return segments.joined(separator: "/") + (items.isEmpty ? "" : "?" + items.joined(separator: "&"))
    }
}

/// The routes every door shares: `youll://` links, https universal links on the hosts
/// of the configuration, and in-app requests.
public struct RouteTable: Hashable, Sendable {
    public var routes: [Route]

    public init(routes: [Route]) {
        self.routes = routes
    }

    /// The table of `../shared/ARCHITECTURE.md`, section "Deep links".
    public static let standard = RouteTable(routes: [
        Route(
            name: .tuyaMaintenance, path: [.literal("tuya"), .literal("maintenance")], query: [.type, .device],
            checks: [.maintenanceTypeKnown(type: .type, device: .device)], preconditions: [.devicePaired(.device)]),
        Route(
            name: .tuyaDevice, path: [.literal("tuya"), .literal("devices"), .parameter(.device)],
            preconditions: [.devicePaired(.device)]),
        Route(name: .tuyaPair, path: [.literal("tuya"), .literal("pair")]),
        Route(
            name: .timer, path: [.literal("timer")], query: [.preset, .minutes], checks: [.presetExists(.preset)],
            preconditions: [.noSessionRunning]),
        Route(name: .timerSession, path: [.literal("timer"), .literal("sessions"), .parameter(.session)]),
    ])

    public func route(named name: RouteName) -> Route? {
        routes.first { $0.name == name }
    }

    /// The patterns, for messages.
    public var summary: String {
        routes.map(\.pattern).joined(separator: ", ")
    }
}
