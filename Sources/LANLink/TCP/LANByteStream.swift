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
    /// Hands the bytes from the device to `received`, and their end to `ended` (once), each
    /// called on `loop`, in order: instead of `bytes`, and called once. A link whose actor
    /// runs on `loop` handles them there without a hop.
    func deliver(
        on loop: LANLoop, received: @escaping @Sendable ([UInt8]) -> Void, ended: @escaping @Sendable () -> Void)
}

extension LANByteStream {
    /// A stream with nothing to wait for (one in memory) closes at once.
    public func closeAndWait(timeout: Duration) async { close() }

    /// Reads `bytes` in a task of its own and hands each chunk over to `loop`.
    public func deliver(
        on loop: LANLoop, received: @escaping @Sendable ([UInt8]) -> Void, ended: @escaping @Sendable () -> Void
    ) {
        let bytes = bytes
        Task {
            for await chunk in bytes { loop.execute { received(chunk) } }
            loop.execute { ended() }
        }
    }
}

/// Opens byte streams to devices: `TCPConnector` in the gateway.
public protocol LANConnector: Sendable {
    func connect(host: String, port: Int, timeout: Duration) async throws(LANConnectError) -> any LANByteStream
    /// A stream whose I/O runs on `loop` where it can, read through `deliver(on: loop, …)`.
    func connect(host: String, port: Int, timeout: Duration, on loop: LANLoop) async throws(LANConnectError)
        -> any LANByteStream
}

extension LANConnector {
    public func connect(host: String, port: Int, timeout: Duration, on loop: LANLoop) async throws(LANConnectError)
        -> any LANByteStream
    {
        try await connect(host: host, port: port, timeout: timeout)
    }
}

/// Connects over TCP (`LANConnection`).
public struct TCPConnector: LANConnector {
    public init() {}

    public func connect(host: String, port: Int, timeout: Duration) async throws(LANConnectError)
        -> any LANByteStream
    {
        try await LANConnection.connect(host: host, port: port, timeout: timeout)
    }

    public func connect(host: String, port: Int, timeout: Duration, on loop: LANLoop) async throws(LANConnectError)
        -> any LANByteStream
    {
        try await LANConnection.connect(host: host, port: port, timeout: timeout, on: loop)
    }
}
