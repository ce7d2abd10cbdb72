import TuyaCore

/// A route with its parameters' values as text, not yet checked against the route's
/// rules or the context: what a parsed URL becomes, what in-app code asks for, and what
/// a gate keeps to resume later (`RouteResolution.gated(_:resume:)`).
public struct RouteRequest: Hashable, Sendable, CustomStringConvertible {
    public var route: RouteName
    private var device: String?
    private var type: String?
    private var preset: String?
    private var minutes: String?
    private var session: String?

    public init(route: RouteName, arguments: [RouteParameter: String] = [:]) {
        self.route = route
        for (parameter, value) in arguments { self[parameter] = value }
    }

    /// The request that leads to `destination`.
    public init(_ destination: DeeplinkDestination) {
        switch destination {
        case .tuyaMaintenance(let type, let deviceID):
            self.init(route: .tuyaMaintenance)
            self.type = type
            self.device = deviceID.rawValue
        case .tuyaDevice(let id):
            self.init(route: .tuyaDevice)
            self.device = id.rawValue
        case .tuyaPair:
            self.init(route: .tuyaPair)
        case .timer(let preset, let minutes):
            self.init(route: .timer)
            self.preset = preset
            self.minutes = String(minutes)
        case .timerSession(let id):
            self.init(route: .timerSession)
            self.session = id
        }
    }

    /// The value given for a parameter, as text.
    public subscript(parameter: RouteParameter) -> String? {
        get {
            switch parameter {
            case .device: device
            case .type: type
            case .preset: preset
            case .minutes: minutes
            case .session: session
            }
        }
        set {
            switch parameter {
            case .device: device = newValue
            case .type: type = newValue
            case .preset: preset = newValue
            case .minutes: minutes = newValue
            case .session: session = newValue
            }
        }
    }

    public var description: String {
        let arguments = RouteParameter.allCases.compactMap { parameter in
            self[parameter].map { "\(parameter.rawValue)=\($0.debugDescription)" }
        }
        return route.rawValue + (arguments.isEmpty ? "" : " " + arguments.joined(separator: " "))
    }
}
