import NIOCore
import TuyaWire

/// Reads datagrams on the simulator's solicitation port and hands every 3.5
/// solicitation (protocol/TUYA.md §2.1) to the fleet; anything else is ignored.
final class LANSolicitationHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let onSolicitation: (LANSolicitation) -> Void

    init(onSolicitation: @escaping (LANSolicitation) -> Void) {
        self.onSolicitation = onSolicitation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        guard case .solicitation(let solicitation)? = try? LANDiscovery.decode(Array(envelope.data.readableBytesView))
        else { return }
        onSolicitation(solicitation)
    }
}
