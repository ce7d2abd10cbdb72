import NIOCore
import NIOPosix

/// One TCP connection to a Tuya LAN device (port 6668). The device link owns it for as long
/// as it lives and never opens a second one to the same device (two sessions lock some
/// firmware up until it is power-cycled). Bytes arrive as the network delivers them; frame
/// boundaries are found by the codec above.
///
/// No task of its own: a handler at the end of the channel's pipeline yields what arrives
/// into `bytes` on the event loop, and `write` hands each frame to the channel, which queues
/// it on its event loop in the order written, so the link never waits on the socket. A
/// gateway holds one per device, so each costs only its socket, its pipeline and its stream.
public final class LANConnection: LANByteStream {
    /// `ip:port` of the device.
    public let remote: String
    public let bytes: AsyncStream<[UInt8]>
    private let channel: any Channel

    private init(remote: String, bytes: AsyncStream<[UInt8]>, channel: any Channel) {
        self.remote = remote
        self.bytes = bytes
        self.channel = channel
    }

    /// Connects to `host:port`, waiting at most `timeout`.
    public static func connect(
        host: String, port: Int = 6668, timeout: Duration = .seconds(5)
    ) async throws(LANConnectError) -> LANConnection {
        let (bytes, received) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .unbounded)
        let channel: any Channel
        do {
            channel = try await open(host: host, port: port, timeout: timeout, delivering: received)
        } catch {
            received.finish()
            throw error
        }
        return LANConnection(remote: "\(host):\(port)", bytes: bytes, channel: channel)
    }

    public func write(_ frame: [UInt8]) {
        channel.writeAndFlush(ByteBuffer(bytes: frame), promise: nil)
    }

    public func close() {
        channel.close(promise: nil)
    }

    /// Half-closes: the device reads the end of our stream and closes its side, which ends
    /// the channel; only then has it let the connection go. A device that does not close
    /// within `timeout` is cut off.
    public func closeAndWait(timeout: Duration) async {
        // Frames written before are queued on the channel's event loop ahead of the close.
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
        host: String, port: Int, timeout: Duration, delivering received: AsyncStream<[UInt8]>.Continuation
    ) async throws(LANConnectError) -> any Channel {
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
                // Device frames are a few hundred bytes: start reads small, grow on demand.
                .channelOption(
                    .recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65_536)
                )
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(Delivery(received))
                    }
                }
                .connect(to: address).get()
        } catch let error as IOError where error.errnoCode == ECONNREFUSED || error.errnoCode == ECONNRESET {
            throw .refused(host: host)
        } catch ChannelError.connectTimeout {
            throw .timedOut(host: host, after: timeout)
        } catch {
            throw .unreachable(host: host, reason: String(describing: error))
        }
    }

    /// The end of the pipeline: what arrives goes into `bytes`, which ends with the channel.
    private final class Delivery: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer

        private let received: AsyncStream<[UInt8]>.Continuation

        init(_ received: AsyncStream<[UInt8]>.Continuation) {
            self.received = received
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            received.yield(unwrapInboundIn(data).bytes)
        }

        func channelInactive(context: ChannelHandlerContext) {
            received.finish()
            context.fireChannelInactive()
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            received.finish()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}

extension ByteBuffer {
    /// The readable bytes as an array.
    public var bytes: [UInt8] { getBytes(at: readerIndex, length: readableBytes) ?? [] }
}
