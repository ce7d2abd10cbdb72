import TuyaWire

/// What was wrong with a frame from a LAN device, in the words of a log line. Classified
/// from the session's failure; never carries key material or decrypted bytes.
enum LANFrameFault: String, Hashable, Sendable, CustomStringConvertible {
    case badCRC = "bad CRC"
    case badLength = "bad length"
    case badHMAC = "bad HMAC"
    case badGCMTag = "bad GCM tag"
    case undecryptable
    case notAFrame = "not a LAN frame"
    case truncated = "truncated frame"
    case unexpected = "unexpected message"

    var description: String { rawValue }

    /// The fault behind `failure`. `duringHandshake`: the session key was not agreed yet, so
    /// a key mismatch is the handshake answer's HMAC (3.4) or GCM tag (3.5) failing.
    init(_ failure: LANSessionFailure, version: LANProtocolVersion, duringHandshake: Bool) {
        switch failure {
        case .handshakeHMACMismatch:
            self = .badHMAC
        case .keyMismatch:
            if duringHandshake, version.negotiatesSessionKey {
                self = version.usesGCMFrames ? .badGCMTag : .badHMAC
            } else {
                self = .undecryptable
            }
        case .malformed(let error):
            switch error {
            case .checksumMismatch: self = .badCRC
            case .lengthOutOfRange: self = .badLength
            case .truncated: self = .truncated
            case .authenticationFailed: self = version.usesGCMFrames ? .badGCMTag : .badHMAC
            case .keyMismatch, .badPadding: self = .undecryptable
            case .malformed: self = .notAFrame
            default: self = .unexpected
            }
        }
    }
}

/// Rate-limits the log lines about bad frames from one device: the first is logged, then at
/// most one per `interval`, which says how many were left out since the last line. Pure:
/// time comes in as the link's clock reading.
struct LANFaultLog: Sendable {
    var interval: Duration = .seconds(60)
    private var lastLineAt: Duration?
    private var suppressed = 0

    /// Whether to log a fault that happened at `now`: nil to leave it out (it is counted),
    /// or the number left out since the last line.
    mutating func admit(now: Duration) -> Int? {
        if let lastLineAt, now < lastLineAt + interval {
            suppressed += 1
            return nil
        }
        lastLineAt = now
        defer { suppressed = 0 }
        return suppressed
    }
}
