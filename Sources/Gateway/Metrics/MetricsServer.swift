import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// A small HTTP/1.1 server for Prometheus: `GET /metrics` answers the text exposition format,
/// any other path 404, any other method 405. One request per connection (`Connection: close`).
///
/// Hostile clients cannot take it down: a malformed request is answered 400 by NIO's protocol
/// error handler, a connection that sends more than `requestLimit` bytes is answered 431,
/// one that stays silent is closed after `idleTimeout`; either way the connection is closed
/// and the server goes on serving the next scrape.
public final class MetricsServer: Sendable {
    /// The port the server listens on (the one the system picked when asked for port 0).
    public let port: Int
    private let channel: any Channel
    private let logger: Logger

    /// Bytes one connection may send, request line and headers included (a scrape needs a few hundred).
    static let requestLimit = 16 * 1024
    static let idleTimeout = TimeAmount.seconds(10)

    /// Listens on `host:port` (port 0: any free port, read back from `port`). `render` is
    /// called for each scrape and returns the body; it runs outside the event loop.
    public static func start(
        host: String, port: Int, logger: Logger, render: @escaping @Sendable () async -> [UInt8]
    ) async throws -> MetricsServer {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(IdleStateHandler(readTimeout: idleTimeout))
                    try pipeline.addHandler(RequestSizeGuard(limit: requestLimit))
                    try pipeline.configureHTTPServerPipeline(withPipeliningAssistance: false, withErrorHandling: true)
                    try pipeline.addHandler(MetricsRequestHandler(render: render))
                }
            }
        let channel = try await bootstrap.bind(host: host, port: port).get()
        let bound = channel.localAddress?.port ?? port
        return MetricsServer(port: bound, channel: channel, logger: logger)
    }

    private init(port: Int, channel: any Channel, logger: Logger) {
        self.port = port
        self.channel = channel
        self.logger = logger
    }

    /// Stops listening; a scrape under way finishes on its own connection.
    public func stop() async {
        do {
            try await channel.close()
        } catch {
            logger.debug("closing the metrics listener: \(error)")
        }
    }
}

/// Answers each complete request: `GET /metrics` with the rendered body, or an error status.
private final class MetricsRequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let render: @Sendable () async -> [UInt8]
    private var head: HTTPRequestHead?

    init(render: @escaping @Sendable () async -> [UInt8]) {
        self.render = render
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end:
            guard let head else { return }
            self.head = nil
            respond(to: head, context: context)
        }
    }

    /// A malformed request (NIO's error handler has answered 400) or a broken socket: hang up.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard head.method == .GET else {
            Self.write(
                .methodNotAllowed, body: Array("only GET is served\n".utf8), extra: [("Allow", "GET")], context: context
            )
            return
        }
        guard path == "/metrics" else {
            Self.write(.notFound, body: Array("not found; metrics are at /metrics\n".utf8), context: context)
            return
        }
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        let promise = context.eventLoop.makePromise(of: [UInt8].self)
        promise.completeWithTask { [render] in await render() }
        promise.futureResult.whenSuccess { body in
            Self.write(
                .ok, body: body, contentType: "text/plain; version=0.0.4; charset=utf-8", context: bound.value)
        }
    }

    private static func write(
        _ status: HTTPResponseStatus, body: [UInt8], contentType: String = "text/plain; charset=utf-8",
        extra: [(String, String)] = [], context: ChannelHandlerContext
    ) {
        var headers = HTTPHeaders([
            ("Content-Type", contentType), ("Content-Length", String(body.count)), ("Connection", "close"),
        ])
        headers.add(contentsOf: extra)
        let head = HTTPResponseHead(version: .http1_1, status: status, headers: headers)
        context.write(NIOAny(HTTPServerResponsePart.head(head)), promise: nil)
        context.write(
            NIOAny(HTTPServerResponsePart.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))),
            promise: nil)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil))).whenComplete { _ in
            bound.value.close(promise: nil)
        }
    }
}

/// Closes connections that send too much (431) or nothing for a while; sits before the HTTP decoder.
private final class RequestSizeGuard: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let limit: Int
    private var received = 0
    private var refused = false

    init(limit: Int) {
        self.limit = limit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        received += unwrapInboundIn(data).readableBytes
        guard received <= limit else {
            refused = true
            let answer =
                "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: answer))).whenComplete { _ in
                bound.value.close(promise: nil)
            }
            return
        }
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }
}
