/// What went wrong on a Tuya BLE link, each case saying what to do about it. Cases
/// marked "ends the link" make the session disconnect (and the link reconnect with
/// backoff, except after a refusal); the others drop one frame and the session goes on.
/// Messages never include a key.
public enum BLESessionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Pairing answered 1: the uuid does not match the device. Ends the link; not retried.
    case refused
    /// The device answered device info with a frame the login key does not decrypt. Ends the link.
    case wrongKey
    /// Device info got no answer at all. A device silently drops frames it cannot decrypt
    /// (SDK `tuya_ble_commonData_rx_proc`), so this is almost always a wrong local key.
    /// Ends the link.
    case deviceInfoUnanswered
    /// A request got no answer within the response timeout. Ends the link.
    case responseTimeout(command: String, after: Duration)
    /// Device info announced a protocol version this gateway cannot drive. Ends the link.
    case unsupportedProtocol(UInt8)
    /// The transport could not connect (out of range, adapter busy). Retried with backoff.
    case connectFailed(reason: String)
    /// A notification that belongs to no frame (packet number > 0 with no frame under way).
    case strayPacket(number: Int)
    /// A frame arrived with a missing packet; it is lost.
    case packetGap(expected: Int, got: Int)
    /// A frame stopped before its last packet (a new frame began): it is lost.
    case incompleteFrame
    /// A first packet announced a frame longer than any real one; it is ignored.
    case oversizedFrame(length: Int, limit: Int)
    /// A whole frame that cannot be decrypted or parsed: wrong flag, broken envelope,
    /// garbage under the session key.
    case garbledFrame(reason: String)
    /// A frame that decrypted but whose CRC-16 does not match: damaged in transit.
    case corruptFrame
    /// The device answered a DP write with "failed" (a value it does not accept).
    case writeRejected
    /// A frame whose sn is not above the last one the device sent on this connection: a
    /// replay or a duplicate (the device's sn grows by one per frame; issue 15 item 1).
    case repeatedSequence(sn: UInt32, last: UInt32)

    /// True for the cases that end the link.
    public var endsLink: Bool {
        switch self {
        case .refused, .wrongKey, .deviceInfoUnanswered, .responseTimeout, .unsupportedProtocol, .connectFailed: true
        case .strayPacket, .packetGap, .incompleteFrame, .oversizedFrame, .garbledFrame, .corruptFrame, .writeRejected,
            .repeatedSequence:
            false
        }
    }

    public var description: String {
        switch self {
        case .refused:
            "refused (uuid mismatch): the device did not accept the pair request; check the uuid from the Tuya cloud"
        case .wrongKey:
            "the device's answer does not decrypt with the login key; check the local key"
        case .deviceInfoUnanswered:
            "no answer to the device-info request; devices ignore frames they cannot decrypt, so check the local key"
        case .responseTimeout(let command, let after):
            "no answer to \(command) within \(after); the link was dropped and will be reconnected"
        case .unsupportedProtocol(let version):
            "the device speaks Tuya BLE protocol \(version); this gateway drives protocols 3 and 4"
        case .connectFailed(let reason):
            "cannot connect: \(reason); check that the device is powered and in range"
        case .strayPacket(let number):
            "ignored a stray notification (packet \(number) with no frame under way)"
        case .packetGap(let expected, let got):
            "a frame lost packet \(expected) (got \(got) next); the frame was dropped"
        case .incompleteFrame:
            "a frame stopped before its last packet; it was dropped"
        case .oversizedFrame(let length, let limit):
            "ignored a frame announcing \(length) bytes (limit \(limit))"
        case .garbledFrame(let reason):
            "ignored a frame that cannot be read: \(reason)"
        case .corruptFrame:
            "ignored a frame whose CRC-16 does not match (damaged in transit)"
        case .writeRejected:
            "the device refused a DP write"
        case .repeatedSequence(let sn, let last):
            "ignored a frame with sn \(sn) after sn \(last) on this connection (a replay or a duplicate)"
        }
    }
}
