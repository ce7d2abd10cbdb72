import TuyaCore

/// What resolving a link gives when it can be resolved: go there now, or first satisfy a
/// precondition and then resume with the kept request. A gate is a result, not an error.
public enum RouteResolution: Hashable, Sendable {
    case proceed(DeeplinkDestination)
    case gated(Precondition, resume: RouteRequest)
}

/// A precondition that does not hold yet, with what to do about it.
public enum Precondition: Hashable, Sendable, CustomStringConvertible {
    /// The link names a device that is not paired.
    case devicePaired(DeviceID)
    /// A timer session is running.
    case noSessionRunning

    public var description: String {
        switch self {
        case .devicePaired(let id): "device \(id) is not paired; pair it first (youll-devices pair)"
        case .noSessionRunning:
            "a timer session is running; stop it first (youll-devices timer stop) or wait for it to end"
        }
    }
}
