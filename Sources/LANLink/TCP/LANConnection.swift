import NIOCore
import NIOPosix

/// One TCP connection to a Tuya LAN device (port 6668). The device link owns it for as long
/// as it lives and never opens a second one to the same device (two sessions lock some
/// firmware up until it is power-cycled). Bytes arrive as the network delivers them; frame
/// boundaries are found by the codec above.
///
/// No task of its own: a handler at the end of the channel's pipeline hands what arrives
/// over on the event loop, and `write` hands each frame to the channel, which queues it on
/// its event loop in the order written, so the link never waits on the socket. Connected
/// `on` a link's loop (`LANLoop`), the handler calls the link's `deliver` callbacks right
/// there, so a link whose actor runs on that loop reads, decrypts and answers a frame on one
/// thread; otherwise what arrives goes into `bytes`. A gateway holds one per device, so each
/// costs only its socket, its pipeline and its stream.
public final class LANConnection: LANByteStream {
    /// `ip:port` of the device.
    public let remote: String
    /// What arrives, unless connected on a loop (then `deliver` is the way, and this is empty).
    public let bytes: AsyncStream<[UInt8]>
    private let channel: any Channel
    /// The handler holding what arrives until `deliver`, when connected on a loop.
    private let held: NIOLoopBoundBox<Delivery?>?

    private init(
        remote: String, bytes: AsyncStream<[UInt8]>, channel: any Channel, held: NIOLoopBoundBox<Delivery?>?
    ) {
        self.remote = remote
        self.bytes = bytes
        self.channel = channel
        self.held = held
    }

    /// Connects to `host:port`, waiting at most `timeout`. With `loop`, the connection's I/O
    /// runs on it and what arrives waits there for `deliver(on:received:ended:)`.
    public static func connect(
        host: String, port: Int = 6668, timeout: Duration = .seconds(5), on loop: LANLoop? = nil
    ) async throws(LANConnectError) -> LANConnection {
        let (bytes, received) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .unbounded)
        let held = loop.map { NIOLoopBoundBox.makeEmptyBox(valueType: Delivery.self, eventLoop: $0.eventLoop) }
        if held != nil { received.finish() }
        let channel: any Channel
        do {
            channel = try await open(
                host: host, port: port, timeout: timeout, on: loop?.eventLoop,
                delivering: held == nil ? received : nil, held: held)
        } catch {
            received.finish()
            throw error
        }
        return LANConnection(remote: "\(host):\(port)", bytes: bytes, channel: channel, held: held)
    }

    public func deliver(
        on loop: LANLoop, received: @escaping @Sendable ([UInt8]) -> Void, ended: @escaping @Sendable () -> Void
    ) {
        guard let held else {
            // Connected without a loop: read `bytes` (the protocol's default).
            let bytes = bytes
            Task {
                for await chunk in bytes { loop.execute { received(chunk) } }
                loop.execute { ended() }
            }
            return
        }
        var handOver = received
        if loop.eventLoop !== channel.eventLoop {
            handOver = { chunk in loop.execute { received(chunk) } }
        }
        let attach: @Sendable () -> Void = { [handOver] in
            held.value?.attach(received: handOver, ended: { loop.execute(ended) })
        }
        if channel.eventLoop.inEventLoop { attach() } else { channel.eventLoop.execute(attach) }
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
        host: String, port: Int, timeout: Duration, on loop: (any EventLoop)?,
        delivering received: AsyncStream<[UInt8]>.Continuation?, held: NIOLoopBoundBox<Delivery?>?
    ) async throws(LANConnectError) -> any Channel {
        let address: SocketAddress
        do {
            address = try SocketAddress(ipAddress: host, port: port)
        } catch {
            throw .invalidAddress(host)
        }
        do {
            return try await ClientBootstrap(group: loop ?? MultiThreadedEventLoopGroup.singleton.next())
                .connectTimeout(.milliseconds(max(1, Int64(timeout / .milliseconds(1)))))
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                // Device frames are a few hundred bytes: start reads small, grow on demand.
                .channelOption(
                    .recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65_536)
                )
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let delivery = Delivery(received)
                        held?.value = delivery
                        try channel.pipeline.syncOperations.addHandler(delivery)
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

    /// The end of the pipeline: what arrives goes into `bytes` (`stream`), or to the
    /// callbacks `attach`ed, held until then; the end is told once, after what came before.
    private final class Delivery: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer

        private let stream: AsyncStream<[UInt8]>.Continuation?
        private var received: (@Sendable ([UInt8]) -> Void)?
        private var ended: (@Sendable () -> Void)?
        private var waiting: [[UInt8]] = []
        private var isEnded = false

        init(_ stream: AsyncStream<[UInt8]>.Continuation?) {
            self.stream = stream
        }

        /// Hands over what was held, then all that arrives (on the channel's loop).
        func attach(received: @escaping @Sendable ([UInt8]) -> Void, ended: @escaping @Sendable () -> Void) {
            for chunk in waiting { received(chunk) }
            waiting = []
            if isEnded {
                ended()
            } else {
                self.received = received
                self.ended = ended
            }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let bytes = unwrapInboundIn(data).bytes
            if let stream {
                stream.yield(bytes)
            } else if let received {
                received(bytes)
            } else {
                waiting.append(bytes)
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            end()
            context.fireChannelInactive()
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            end()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }

        private func end() {
            stream?.finish()
            guard !isEnded else { return }
            isEnded = true
            let ended = ended
            received = nil
            self.ended = nil
            ended?()
        }
    }
}

extension ByteBuffer {
    /// The readable bytes as an array.
    public var bytes: [UInt8] { getBytes(at: readerIndex, length: readableBytes) ?? [] }
}
