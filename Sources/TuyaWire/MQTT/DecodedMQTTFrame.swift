/// A Tuya MQTT payload after its integrity check and decryption: the plaintext JSON
/// body and the header fields it came with.
public struct DecodedMQTTFrame: Sendable, Hashable {
    /// "2.2" or "2.1" (protocol/TUYA.md §3.2).
    public let version: String
    /// The sender's sequence number; `nil` for 2.1, whose header has none.
    public let sequence: UInt32?
    /// 1 for a device; `nil` for 2.1.
    public let source: UInt32?
    /// The decrypted, unpadded JSON body (parse it with `TuyaEnvelope.decode`).
    public let body: [UInt8]

    public init(version: String, sequence: UInt32?, source: UInt32?, body: [UInt8]) {
        self.version = version
        self.sequence = sequence
        self.source = source
        self.body = body
    }
}
