/// The timer module's seam, under the name the app this gateway grew out of gives it in
/// its Core: it runs meditation sessions given an optional Tuya controller and reports
/// the badges they earn. Headless here: no screens and no delegate object; a session is
/// started, observed and stopped through these calls, and earned badges arrive on a
/// stream. `SessionEngine`'s `SessionService` provides it; the gateway composes it with
/// the controller of a `TuyaModuleInterface`.
public protocol TimerModuleInterface: Sendable {
    /// What starting a session takes: a preset, its length, the devices.
    associatedtype StartRequest: Sendable
    /// A session as it stands: phase, elapsed and remaining time, cues fired.
    associatedtype Status: Sendable
    /// One badge earned.
    associatedtype Badge: Sendable

    /// The controller sessions drive devices through; nil runs sessions without devices
    /// (timing, bells and history only).
    var tuyaController: (any TuyaControllerProtocol)? { get }

    /// Starts a session; refuses while another one is active.
    func start(_ request: StartRequest) async throws -> Status

    /// The active session; nil when none runs.
    func status() async -> Status?

    /// Ends the active session: its end effect plays out, or with `immediately` its end
    /// state is applied at once.
    func stop(immediately: Bool) async throws -> Status

    /// Every badge earned from now on, once each, as completed sessions earn them.
    func badgeEvents() -> AsyncStream<Badge>
}
