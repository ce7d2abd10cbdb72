import SessionEngine
import TuyaCore

/// What to start: a preset (the configured default when nil), the session's shape, and
/// the devices by friendly name or id (every paired device when nil).
public struct SessionStartRequest: Hashable, Sendable {
    public var preset: String?
    public var configuration: SessionConfiguration
    public var devices: [String]?

    public init(preset: String? = nil, configuration: SessionConfiguration, devices: [String]? = nil) {
        self.preset = preset
        self.configuration = configuration
        self.devices = devices
    }
}

/// `timer history`: totals and streaks over every finished session, the latest sessions
/// and the badges earned.
public struct SessionHistoryReport: Sendable {
    public var summary: SessionHistory
    public var sessions: [SessionRecord]
    public var badges: Set<Badge>
}

/// Where the session service says what happens: the daemon wires it to the bridge's
/// `bridge/event` and retained `bridge/session`; the CLI's foreground mode prints.
public struct SessionAnnouncer: Sendable {
    public var event: @Sendable (_ type: String, _ data: [String: JSONValue]) async -> Void
    public var status: @Sendable (_ status: JSONValue) async -> Void
    /// Every cue that fired, with its planned and actual time (the metrics' lateness).
    public var cue: @Sendable (_ record: CueRecord) -> Void

    public init(
        event: @escaping @Sendable (String, [String: JSONValue]) async -> Void,
        status: @escaping @Sendable (JSONValue) async -> Void,
        cue: @escaping @Sendable (CueRecord) -> Void = { _ in }
    ) {
        self.event = event
        self.status = status
        self.cue = cue
    }

    public static let silent = SessionAnnouncer(event: { _, _ in }, status: { _ in })
}

/// Why a session request was refused, in words that name the fix.
public enum SessionServiceError: Error, Hashable, Sendable, CustomStringConvertible {
    case alreadyActive(SessionID)
    /// Another start is being set up at this moment.
    case busy
    case noSession
    case unknownPreset(String, known: [String])
    case unknownDevice(field: String, reference: String)
    /// The configuration or the action does not fit (the engine's words, naming the field).
    case invalid(SessionError)
    case storage(String)
    /// `timer.history: false` in the config.
    case historyOff

    public var description: String {
        switch self {
        case .alreadyActive(let id):
            "session \(id) is already running; stop it first (`youll-devices timer stop`)"
        case .busy: "another session is being started; try again"
        case .noSession: "no session is running"
        case .unknownPreset(let name, let known):
            "preset: no preset is named \"\(name.prefix(40))\"; known: \(known.joined(separator: ", "))"
        case .unknownDevice(let field, let reference):
            "\(field): no device is named \"\(reference.prefix(64))\" or has that id"
        case .invalid(let error): error.description
        case .storage(let reason): "the session store failed while \(reason)"
        case .historyOff: "session history is switched off in the configuration (timer.history: false)"
        }
    }
}
