import TuyaCore

/// Carries links through gates: submits a link, keeps the request of a gated one, and
/// re-resolves it against a fresh context when the gate is reported satisfied. Pure state
/// with explicit transitions; the owner (the app's navigation, the CLI's `open`) performs
/// what the outcomes say and supplies a fresh `RouteContext` each time.
///
/// One gate is pending at a time, like one navigation flow: submitting a new link while
/// one waits supersedes it, and the superseded one counts as cancelled.
public struct RouteDispatcher: Hashable, Sendable {
    /// A gated request waiting for its precondition.
    public struct PendingGate: Hashable, Sendable {
        public var precondition: Precondition
        public var request: RouteRequest
    }

    public let engine: RoutingEngine
    /// The gated request waiting to resume, if any.
    public private(set) var pending: PendingGate?
    private var counts: [RouteName: RouteOutcomeCounts] = [:]
    private var unrouted = RouteOutcomeCounts()

    public init(engine: RoutingEngine = RoutingEngine()) {
        self.engine = engine
    }

    /// Resolves an untrusted link; a gate keeps its resume request as `pending`.
    public mutating func submit(url: String, context: RouteContext) -> DispatchOutcome {
        supersedePending()
        var route: RouteName?
        do throws(RouteError) {
            let resolution = try engine.resolveTracking(url: url, context: context, route: &route)
            return record(resolution, route: route)
        } catch {
            count(route) { $0.rejected += 1 }
            return .rejected(error)
        }
    }

    /// Resolves an in-app request; a gate keeps its resume request as `pending`.
    public mutating func submit(_ request: RouteRequest, context: RouteContext) -> DispatchOutcome {
        supersedePending()
        return resolve(request, context: context, isResume: false)
    }

    /// The pending gate's precondition was met: re-resolves its request against `context`.
    /// It may proceed, meet the next gate (chained gates; it stays pending), or no longer
    /// resolve because the context changed meanwhile (`.stale`; it is dropped).
    public mutating func gateSatisfied(context: RouteContext) -> DispatchOutcome {
        guard let gate = pending else { return .noPendingGate }
        pending = nil
        return resolve(gate.request, context: context, isResume: true)
    }

    /// The person gave up on the gate: drops the pending request and returns it.
    @discardableResult
    public mutating func gateCancelled() -> RouteRequest? {
        guard let gate = pending else { return nil }
        pending = nil
        count(gate.request.route) { $0.cancelled += 1 }
        return gate.request
    }

    /// Outcome counts per route so far, for metrics.
    public var metrics: RouteMetrics {
        var perRoute: [RouteName: RouteOutcomeCounts] = [:]
        for route in RouteName.allCases { perRoute[route] = counts[route] ?? RouteOutcomeCounts() }
        return RouteMetrics(perRoute: perRoute, unrouted: unrouted)
    }

    private mutating func resolve(_ request: RouteRequest, context: RouteContext, isResume: Bool) -> DispatchOutcome {
        do throws(RouteError) {
            return record(try engine.resolve(request: request, context: context), route: request.route)
        } catch {
            count(request.route) { $0.rejected += 1 }
            return isResume ? .stale(error) : .rejected(error)
        }
    }

    private mutating func record(_ resolution: RouteResolution, route: RouteName?) -> DispatchOutcome {
        switch resolution {
        case .proceed(let destination):
            count(route) { $0.proceeded += 1 }
            return .proceed(destination)
        case .gated(let precondition, let request):
            count(route) { $0.gated += 1 }
            pending = PendingGate(precondition: precondition, request: request)
            return .gated(precondition)
        }
    }

    private mutating func supersedePending() {
        if pending != nil { gateCancelled() }
    }

    private mutating func count(_ route: RouteName?, _ change: (inout RouteOutcomeCounts) -> Void) {
        if let route {
            change(&counts[route, default: RouteOutcomeCounts()])
        } else {
            change(&unrouted)
        }
    }
}

/// What the dispatcher's owner should do next.
public enum DispatchOutcome: Hashable, Sendable {
    /// Go there now.
    case proceed(DeeplinkDestination)
    /// Ask the person to satisfy this first; the request waits in `pending`.
    case gated(Precondition)
    /// The link or request cannot be resolved.
    case rejected(RouteError)
    /// The resumed request no longer resolves in the fresh context (a preset was removed,
    /// the device was re-paired with a profile without that maintenance type); dropped.
    case stale(RouteError)
    /// `gateSatisfied` was called with no gate pending.
    case noPendingGate
}

/// How often links on one route ended each way. A stale resume counts as rejected, a
/// superseded gate as cancelled.
public struct RouteOutcomeCounts: Hashable, Sendable {
    public var proceeded = 0
    public var gated = 0
    public var rejected = 0
    public var cancelled = 0

    public init(proceeded: Int = 0, gated: Int = 0, rejected: Int = 0, cancelled: Int = 0) {
        self.proceeded = proceeded
        self.gated = gated
        self.rejected = rejected
        self.cancelled = cancelled
    }
}

/// A snapshot of the dispatcher's counts: every route (zeros included) and the links that
/// matched no route (malformed or unknown), which can only be rejected.
public struct RouteMetrics: Hashable, Sendable {
    public var perRoute: [RouteName: RouteOutcomeCounts]
    public var unrouted: RouteOutcomeCounts

    public subscript(route: RouteName) -> RouteOutcomeCounts {
        perRoute[route] ?? RouteOutcomeCounts()
    }
}
