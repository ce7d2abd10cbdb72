import TuyaCore

/// A request's values after each has passed its parameter's syntax, typed.
struct ParameterValues {
    private(set) var device: DeviceID?
    private(set) var type: String?
    private(set) var preset: String?
    private(set) var minutes: Int?
    private(set) var session: String?

    /// Checks every parameter the route takes, in path then query order.
    init(_ request: RouteRequest, route: Route) throws(RouteError) {
        for segment in route.path {
            if case .parameter(let parameter) = segment { try take(parameter, from: request) }
        }
        for parameter in route.query { try take(parameter, from: request) }
    }

    private mutating func take(_ parameter: RouteParameter, from request: RouteRequest) throws(RouteError) {
        guard let raw = request[parameter] else { throw .validationFailed(field: parameter.rawValue, reason: .missing) }
        if let reason = parameter.syntax.check(raw) {
            throw .validationFailed(field: parameter.rawValue, reason: reason)
        }
        switch parameter {
        case .device: device = DeviceID(raw)
        case .type: type = raw
        case .preset: preset = raw
        case .minutes: minutes = ParameterSyntax.wholeNumber(raw.utf8)
        case .session: session = raw
        }
    }

    func text(_ parameter: RouteParameter) -> String? {
        switch parameter {
        case .device: device?.rawValue
        case .type: type
        case .preset: preset
        case .minutes: minutes.map(String.init)
        case .session: session
        }
    }

    private func deviceID(_ parameter: RouteParameter) -> DeviceID? {
        parameter == .device ? device : text(parameter).flatMap(DeviceID.init)
    }

    /// Throws when the context says the named thing does not exist. A maintenance type is
    /// judged only once its device is paired; until then the precondition gates.
    func verify(_ check: ContextCheck, context: RouteContext) throws(RouteError) {
        switch check {
        case .presetExists(let parameter):
            guard let name = text(parameter) else { return }
            guard context.presets.contains(name) else {
                throw .validationFailed(
                    field: parameter.rawValue, reason: .unknownPreset(known: context.presets.sorted()))
            }
        case .maintenanceTypeKnown(let typeParameter, let deviceParameter):
            guard let type = text(typeParameter), let device = deviceID(deviceParameter),
                let known = context.pairedDevices[device]
            else { return }
            guard known.contains(type) else {
                throw .validationFailed(
                    field: typeParameter.rawValue,
                    reason: .unknownMaintenanceType(device: device, known: known.sorted()))
            }
        }
    }

    func unmet(_ rule: PreconditionRule, context: RouteContext) -> Precondition? {
        switch rule {
        case .devicePaired(let parameter):
            guard let device = deviceID(parameter) else { return nil }
            return context.pairedDevices[device] == nil ? .devicePaired(device) : nil
        case .noSessionRunning:
            return context.sessionRunning ? .noSessionRunning : nil
        }
    }

    func destination(of route: RouteName) throws(RouteError) -> DeeplinkDestination {
        switch route {
        case .tuyaMaintenance: .tuyaMaintenance(type: try require(type, .type), deviceID: try require(device, .device))
        case .tuyaDevice: .tuyaDevice(id: try require(device, .device))
        case .tuyaPair: .tuyaPair
        case .timer: .timer(preset: try require(preset, .preset), minutes: try require(minutes, .minutes))
        case .timerSession: .timerSession(id: try require(session, .session))
        }
    }

    /// A custom table may leave out a parameter its destination needs.
    private func require<Value>(_ value: Value?, _ parameter: RouteParameter) throws(RouteError) -> Value {
        guard let value else { throw .validationFailed(field: parameter.rawValue, reason: .missing) }
        return value
    }
}
