import Synchronization

/// How many BLE problems the radio's links have met since start, by
/// `BLESessionError.reason`: what `health_check` and the metrics
/// (`youll_ble_failures_total{reason}`) report. Shared by every link of one radio.
public final class BLEFailureTally: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    public init() {}

    func count(_ problem: BLESessionError) {
        counts.withLock { $0[problem.reason, default: 0] += 1 }
    }

    /// The totals now.
    public var snapshot: [String: Int] { counts.withLock { $0 } }
}

extension BLESessionError {
    /// A short label for the case, without its details (`wrong_key`, `connect_failed`):
    /// the metrics' `reason`.
    public var reason: String {
        switch self {
        case .refused: "refused"
        case .wrongKey: "wrong_key"
        case .deviceInfoUnanswered: "device_info_unanswered"
        case .responseTimeout: "response_timeout"
        case .unsupportedProtocol: "unsupported_protocol"
        case .connectFailed: "connect_failed"
        case .strayPacket: "stray_packet"
        case .packetGap: "packet_gap"
        case .incompleteFrame: "incomplete_frame"
        case .oversizedFrame: "oversized_frame"
        case .garbledFrame: "garbled_frame"
        case .corruptFrame: "corrupt_frame"
        case .writeRejected: "write_rejected"
        case .repeatedSequence: "repeated_sequence"
        }
    }

    /// Every reason, so the metrics show each one (at 0) before it first happens.
    public static let allReasons = [
        "refused", "wrong_key", "device_info_unanswered", "response_timeout", "unsupported_protocol", "connect_failed",
        "stray_packet", "packet_gap", "incomplete_frame", "oversized_frame", "garbled_frame", "corrupt_frame",
        "write_rejected", "repeated_sequence",
    ]
}
