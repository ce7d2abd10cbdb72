import TuyaCore

extension CueOutcome: RawRepresentable {
    /// The outcome as the cue log writes it: `marked`, `sent`, `confirmed`, `cancelled`,
    /// `skipped:unavailable:<availability>`, `skipped:unknown_device`,
    /// `skipped:nothing_captured`, `skipped:not_applied:<why>`.
    public var rawValue: String {
        switch self {
        case .marked: "marked"
        case .sent: "sent"
        case .confirmed: "confirmed"
        case .cancelled: "cancelled"
        case .skipped(.unavailable(let availability)): "skipped:unavailable:\(availability.rawValue)"
        case .skipped(.unknownDevice): "skipped:unknown_device"
        case .skipped(.nothingCaptured): "skipped:nothing_captured"
        case .skipped(.notApplied(let reason)): "skipped:not_applied:\(reason)"
        }
    }

    /// Reads a stored outcome back; nil for anything else (a damaged log line).
    public init?(rawValue text: String) {
        switch text {
        case "marked": self = .marked
        case "sent": self = .sent
        case "confirmed": self = .confirmed
        case "cancelled": self = .cancelled
        case "skipped:unknown_device": self = .skipped(.unknownDevice)
        case "skipped:nothing_captured": self = .skipped(.nothingCaptured)
        default:
            if text.hasPrefix("skipped:unavailable:"),
                let availability = Availability(rawValue: String(text.dropFirst("skipped:unavailable:".count)))
            {
                self = .skipped(.unavailable(availability))
            } else if text.hasPrefix("skipped:not_applied:") {
                self = .skipped(.notApplied(String(text.dropFirst("skipped:not_applied:".count))))
            } else {
                return nil
            }
        }
    }
}
