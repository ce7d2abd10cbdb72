import NIOCore
import NIOPosix

/// One TCP connection to a Tuya LAN device (port 6668). The device link owns it for as long
/// as it lives and never opens a second one to the same device (two sessions lock some
/// firmware up until it is power-cycled). Bytes arrive as the network delivers them; frame
/// boundaries are found by the codec above.
///
/// One task per connection runs the NIO channel: it copies what arrives into `bytes` and
/// writes what `write` queued, in order, so the link never waits on the socket.
public final class LANConnection: LANByteStream {
    /// `ip:port` of the device.
    public let remote: String
    public let bytes: AsyncStream<[UInt8]>
    private let outbox: AsyncStream<[UInt8]>.Continuation
    private let channel: any Channel

    private init(
        remote: String, bytes: AsyncStream<[UInt8]>, outbox: AsyncStream<[UInt8]>.Continuation, channel: any Channel
    ) {
        self.remote = remote
        self.bytes = bytes
        self.outbox = outbox
        self.channel = channel
    }

    /// Connects to `host:port`, waiting at most `timeout`.
    public static func connect(
        host: String, port: Int = 6668, timeout: Duration = .seconds(5)
    ) async throws(LANConnectError) -> LANConnection {
        let channel = try await open(host: host, port: port, timeout: timeout)
        let (bytes, received) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .unbounded)
        let (frames, outbox) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .unbounded)
        let connection = LANConnection(
            remote: "\(host):\(port)", bytes: bytes, outbox: outbox, channel: channel.channel)
        Task {
            try? await channel.executeThenClose { inbound, outbound in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await frame in frames { try await outbound.write(ByteBuffer(bytes: frame)) }
                    }
                    for try await buffer in inbound { received.yield(buffer.bytes) }
                    group.cancelAll()
                }
            }
            received.finish()
            outbox.finish()
        }
        return connection
    }

    public func write(_ frame: [UInt8]) {
        outbox.yield(frame)
    }

    public func close() {
        outbox.finish()
        channel.close(promise: nil)
    }

    /// Half-closes: the device reads the end of our stream and closes its side, which ends
    /// the channel; only then has it let the connection go. A device that does not close
    /// within `timeout` is cut off.
    public func closeAndWait(timeout: Duration) async {
        outbox.finish()
        let channel = channel
        let (seconds, attoseconds) = timeout.components
        let cutOff = channel.eventLoop.scheduleTask(
            in: .nanoseconds(max(0, seconds) * 1_000_000_000 + attoseconds / 1_000_000_000)
        ) { channel.close(promise: nil) }
        channel.close(mode: .output, promise: nil)
        try? await channel.closeFuture.get()
        cutOff.cancel()
    }

    private static func open(
        host: String, port: Int, timeout: Duration
    ) async throws(LANConnectError) -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        let address: SocketAddress
        do {
            address = try SocketAddress(ipAddress: host, port: port)
        } catch {
            throw .invalidAddress(host)
        }
        do {
            return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.milliseconds(max(1, Int64(timeout / .milliseconds(1)))))
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .connect(to: address) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch let error as IOError where error.errnoCode == ECONNREFUSED || error.errnoCode == ECONNRESET {
            throw .refused(host: host)
        } catch ChannelError.connectTimeout {
            throw .timedOut(host: host, after: timeout)
        } catch {
            throw .unreachable(host: host, reason: String(describing: error))
        }
    }
}

extension ByteBuffer {
    /// The readable bytes as an array.
    public var bytes: [UInt8] { getBytes(at: readerIndex, length: readableBytes) ?? [] }
}
