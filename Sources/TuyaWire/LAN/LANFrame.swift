/// One Tuya LAN frame after its framing and integrity check (protocol/TUYA.md §2.2).
///
/// - For a 55AA frame (3.1–3.4), `payload` is the bytes between the header (and retcode)
///   and the CRC-32 or HMAC trailer, exactly as sent: still encrypted where the version
///   encrypts.
/// - For a 6699 frame (3.5), `payload` is the GCM plaintext after the retcode: the frame
///   cannot be checked without decrypting it.
public struct LANFrame: Sendable, Hashable {
    public enum Format: Sendable, Hashable {
        /// `00 00 55 AA … 00 00 AA 55`, protocol 3.1–3.4.
        case prefix55AA
        /// `00 00 66 99 … 00 00 99 66`, protocol 3.5.
        case prefix6699
    }

    public var format: Format
    public var sequence: UInt32
    public var command: LANCommand
    /// The device's return code (0 = ok). Only frames from a device carry one.
    public var retcode: UInt32?
    public var payload: [UInt8]

    public init(format: Format, sequence: UInt32, command: LANCommand, retcode: UInt32?, payload: [UInt8]) {
        self.format = format
        self.sequence = sequence
        self.command = command
        self.retcode = retcode
        self.payload = payload
    }

    /// Largest frame the codecs and `LANFrameReader` accept by default. Device frames are
    /// far smaller (tinytuya refuses payloads over 1,440 bytes), so a larger length field
    /// means a desynchronised stream or a hostile peer.
    public static let defaultMaxSize = 16_384
}
