/// One UDP datagram heard by the discovery listener.
public struct LANDatagram: Hashable, Sendable {
    public var bytes: [UInt8]
    /// The sender's IP address (a device's broadcast comes from the device itself).
    public var source: String
    /// The local port it arrived on (6666, 6667 or 7000 by default).
    public var port: Int

    public init(bytes: [UInt8], source: String, port: Int) {
        self.bytes = bytes
        self.source = source
        self.port = port
    }
}
