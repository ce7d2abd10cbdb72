import NIOCore

/// Hands a client connection's events to its device's host.
final class LANConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let host: LANDeviceHost

    init(host: LANDeviceHost) {
        self.host = host
    }

    func channelActive(context: ChannelHandlerContext) {
        host.accepted(context.channel)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        host.received(Array(buffer.readableBytesView), from: context.channel)
    }

    func channelInactive(context: ChannelHandlerContext) {
        host.closed(context.channel)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
