import TuyaCore

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
