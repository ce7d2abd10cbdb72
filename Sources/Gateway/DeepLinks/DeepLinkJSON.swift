import DeepLinks
import TuyaCore

/// A deep link's resolution as JSON, the same for the bridge's `deeplink/resolve` and
/// `youll-devices open --dry-run --json`:
///
/// - `{"resolution":"proceed","destination":{…},"url":"youll://…"}`
/// - `{"resolution":"gated","precondition":{"kind","device"?},"message":"…","action":"…",
///   "resume":"youll://…"}`: what to do first, and the link to open afterwards.
/// - `{"resolution":"error","kind":"malformed"|"unknown_route"|"validation_failed",
///   "field":"…"?,"message":"…"}`.
public enum DeepLinkJSON {
    /// Resolves `url` against `context` and describes the outcome.
    public static func resolve(
        _ url: String, context: RouteContext, routing: RoutingEngine = RoutingEngine()
    ) -> (json: JSONValue, resolved: Bool) {
        let (outcome, resolved) = outcome(url, context: context, routing: routing)
        return (BridgeJSON.value(outcome), resolved)
    }

    /// Resolves `url` against `context`: the outcome as a payload, and whether it resolved.
    public static func outcome(
        _ url: String, context: RouteContext, routing: RoutingEngine = RoutingEngine()
    ) -> (outcome: Outcome, resolved: Bool) {
        do throws(RouteError) {
            return (Outcome(try routing.resolve(url: url, context: context), routing: routing), true)
        } catch {
            return (Outcome(error), false)
        }
    }

    public static func resolution(_ resolution: RouteResolution, routing: RoutingEngine = RoutingEngine()) -> JSONValue
    {
        BridgeJSON.value(Outcome(resolution, routing: routing))
    }

    public static func destination(_ destination: DeeplinkDestination) -> JSONValue {
        BridgeJSON.value(Destination(destination))
    }

    public static func error(_ error: RouteError) -> JSONValue {
        BridgeJSON.value(Outcome(error))
    }

    /// One resolution: which fields are there depends on `resolution` (see above).
    public struct Outcome: Codable, Hashable, Sendable {
        public var resolution: String
        public var destination: Destination?
        public var url: String?
        public var precondition: Precondition?
        /// For an error: `malformed`, `unknown_route` or `validation_failed`.
        public var kind: String?
        public var field: String?
        public var message: String?
        public var action: String?
        public var resume: String?

        init(_ resolution: RouteResolution, routing: RoutingEngine) {
            switch resolution {
            case .proceed(let destination):
                self.resolution = "proceed"
                self.destination = Destination(destination)
                url = routing.url(for: destination)
            case .gated(let precondition, let resume):
                self.resolution = "gated"
                switch precondition {
                case .devicePaired(let id):
                    self.precondition = Precondition(kind: "device_paired", device: id.rawValue)
                    action = "youll-devices pair mqtt \(id.rawValue) --key-file FILE"
                case .noSessionRunning:
                    self.precondition = Precondition(kind: "no_session_running")
                    action = "youll-devices timer stop"
                }
                message = precondition.description
                self.resume = resume.description
                if case .proceed(let destination)? = try? routing.resolve(
                    request: resume, context: DeepLinkJSON.satisfied(resume))
                {
                    self.resume = routing.url(for: destination)
                }
            }
        }

        init(_ error: RouteError) {
            resolution = "error"
            message = error.description
            switch error {
            case .malformed: kind = "malformed"
            case .unknownRoute: kind = "unknown_route"
            case .validationFailed(let field, _):
                kind = "validation_failed"
                self.field = field
            }
        }
    }

    /// What must hold before a gated link proceeds.
    public struct Precondition: Codable, Hashable, Sendable {
        public var kind: String
        public var device: String?
    }

    /// Where a link leads: `kind` and that kind's fields.
    public struct Destination: Codable, Hashable, Sendable {
        public var kind: String
        public var type: String?
        public var device: String?
        public var preset: String?
        public var minutes: Int?
        public var session: String?

        init(_ destination: DeeplinkDestination) {
            switch destination {
            case .tuyaMaintenance(let type, let id):
                kind = "tuya_maintenance"
                self.type = type
                device = id.rawValue
            case .tuyaDevice(let id):
                kind = "tuya_device"
                device = id.rawValue
            case .tuyaPair: kind = "tuya_pair"
            case .timer(let preset, let minutes):
                kind = "timer"
                self.preset = preset
                self.minutes = minutes
            case .timerSession(let id):
                kind = "timer_session"
                session = id
            }
        }
    }

    /// A context in which the kept request's gates hold, to print the link it resumes with.
    fileprivate static func satisfied(_ request: RouteRequest) -> RouteContext {
        var context = RouteContext()
        if let device = request[.device].flatMap(DeviceID.init) {
            context.pairedDevices[device] = request[.type].map { [$0] } ?? []
        }
        if let preset = request[.preset] { context.presets = [preset] }
        return context
    }
}
