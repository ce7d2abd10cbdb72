/// A Tuya LAN message with its framing and encryption removed: what a command means,
/// not how it travelled (protocol/TUYA.md §2.3).
public struct LANMessage: Sendable, Hashable {
    public var command: LANCommand
    /// The frame's sequence number. A 3.5 device answers with its own global counter, so
    /// responses are matched by command, never by this number (TT `_get_retcode`).
    public var sequence: UInt32
    /// The device's return code (0 = ok); nil on messages to a device.
    public var retcode: UInt32?
    /// The JSON body with every header removed (empty for a bare acknowledgement), or the
    /// raw nonce/HMAC bytes of a handshake message.
    public var payload: [UInt8]
    /// The 15-byte version or source header the payload came with, if it had one.
    public var header: LANVersionHeader?

    public init(
        command: LANCommand, sequence: UInt32, retcode: UInt32? = nil, payload: [UInt8],
        header: LANVersionHeader? = nil
    ) {
        self.command = command
        self.sequence = sequence
        self.retcode = retcode
        self.payload = payload
        self.header = header
    }
}
