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
        do throws(RouteError) {
            return (resolution(try routing.resolve(url: url, context: context), routing: routing), true)
        } catch {
            return (self.error(error), false)
        }
    }

    public static func resolution(_ resolution: RouteResolution, routing: RoutingEngine = RoutingEngine()) -> JSONValue
    {
        switch resolution {
        case .proceed(let destination):
            return .object([
                "resolution": .string("proceed"), "destination": self.destination(destination),
                "url": .string(routing.url(for: destination)),
            ])
        case .gated(let precondition, let resume):
            let gate: [String: JSONValue]
            let action: String
            switch precondition {
            case .devicePaired(let id):
                gate = ["kind": .string("device_paired"), "device": .string(id.rawValue)]
                action = "youll-devices pair mqtt \(id.rawValue) --key-file FILE"
            case .noSessionRunning:
                gate = ["kind": .string("no_session_running")]
                action = "youll-devices timer stop"
            }
            var fields: [String: JSONValue] = [
                "resolution": .string("gated"), "precondition": .object(gate),
                "message": .string(precondition.description), "action": .string(action),
                "resume": .string(resume.description),
            ]
            if case .proceed(let destination)? = try? routing.resolve(request: resume, context: satisfied(resume)) {
                fields["resume"] = .string(routing.url(for: destination))
            }
            return .object(fields)
        }
    }

    public static func destination(_ destination: DeeplinkDestination) -> JSONValue {
        switch destination {
        case .tuyaMaintenance(let type, let id):
            .object(["kind": .string("tuya_maintenance"), "type": .string(type), "device": .string(id.rawValue)])
        case .tuyaDevice(let id): .object(["kind": .string("tuya_device"), "device": .string(id.rawValue)])
        case .tuyaPair: .object(["kind": .string("tuya_pair")])
        case .timer(let preset, let minutes):
            .object(["kind": .string("timer"), "preset": .string(preset), "minutes": .integer(Int64(minutes))])
        case .timerSession(let id): .object(["kind": .string("timer_session"), "session": .string(id)])
        }
    }

    public static func error(_ error: RouteError) -> JSONValue {
        var fields: [String: JSONValue] = ["resolution": .string("error"), "message": .string(error.description)]
        switch error {
        case .malformed: fields["kind"] = .string("malformed")
        case .unknownRoute: fields["kind"] = .string("unknown_route")
        case .validationFailed(let field, _):
            fields["kind"] = .string("validation_failed")
            fields["field"] = .string(field)
        }
        return .object(fields)
    }

    /// A context in which the kept request's gates hold, to print the link it resumes with.
    private static func satisfied(_ request: RouteRequest) -> RouteContext {
        var context = RouteContext()
        if let device = request[.device].flatMap(DeviceID.init) {
            context.pairedDevices[device] = request[.type].map { [$0] } ?? []
        }
        if let preset = request[.preset] { context.presets = [preset] }
        return context
    }
}
