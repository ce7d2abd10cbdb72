/// A connected byte stream to one LAN device, as the device link uses it: bytes in as they
/// arrive, whole frames out in order. `LANConnection` is the TCP one; tests may join a link
/// to a simulated device in memory.
public protocol LANByteStream: Sendable {
    /// The bytes from the device, for one consumer; ends when either side closes.
    var bytes: AsyncStream<[UInt8]> { get }
    /// Queues `frame` behind the frames written before it. Never blocks; a frame written
    /// after the stream closed is dropped (the link's deadlines notice).
    func write(_ frame: [UInt8])
    /// Closes the stream; `bytes` ends. Idempotent.
    func close()
    /// Closes the stream and returns once the device has let the connection go (it closed
    /// its end too), or after `timeout`. A device holds one client at a time and refuses
    /// another while it still counts this one, so whoever connects next waits for this.
    func closeAndWait(timeout: Duration) async
}

extension LANByteStream {
    /// A stream with nothing to wait for (one in memory) closes at once.
    public func closeAndWait(timeout: Duration) async { close() }
}

/// Opens byte streams to devices: `TCPConnector` in the gateway.
public protocol LANConnector: Sendable {
    func connect(host: String, port: Int, timeout: Duration) async throws(LANConnectError) -> any LANByteStream
}

/// Connects over TCP (`LANConnection`).
public struct TCPConnector: LANConnector {
    public init() {}

    public func connect(host: String, port: Int, timeout: Duration) async throws(LANConnectError)
        -> any LANByteStream
    {
        try await LANConnection.connect(host: host, port: port, timeout: timeout)
    }
}
