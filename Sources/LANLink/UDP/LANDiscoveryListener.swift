import NIOCore
import NIOPosix

/// Listens for Tuya devices' UDP broadcasts (6666 plaintext 3.1, 6667 encrypted 3.3–3.5,
/// 7000 answers to the 3.5 solicitation) and sends the solicitation. A port that cannot be
/// bound (another program, such as tinytuya or Home Assistant's tuya-local, holds it) is
/// reported, not fatal: the other ports still work, and devices can be paired by IP.
public actor LANDiscoveryListener {
    /// A port that could not be bound, and why.
    public struct BindProblem: Hashable, Sendable, CustomStringConvertible {
        public var port: Int
        public var reason: String
        public var description: String { "UDP \(port): \(reason)" }
    }

    public static let defaultPorts = [6666, 6667, 7000]

    private let host: String
    private let ports: [Int]
    private var channels: [Int: NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>] = [:]
    private var readers: [Task<Void, Never>] = []
    private let stream: AsyncStream<LANDatagram>
    private let continuation: AsyncStream<LANDatagram>.Continuation

    /// - Parameters:
    ///   - host: the address to bind (`0.0.0.0` hears broadcasts on every interface).
    ///   - ports: the ports to listen on (tests choose free ones).
    public init(host: String = "0.0.0.0", ports: [Int] = defaultPorts) {
        self.host = host
        self.ports = ports
        (stream, continuation) = AsyncStream.makeStream(of: LANDatagram.self, bufferingPolicy: .bufferingNewest(1024))
    }

    /// Every datagram heard, for one consumer; ends at `stop()`.
    public nonisolated var datagrams: AsyncStream<LANDatagram> { stream }

    /// The ports actually bound, in the order asked.
    public var boundPorts: [Int] { ports.filter { channels[$0] != nil } }

    /// Binds every port it can; returns the ones it could not, with the reason.
    @discardableResult
    public func start() async -> [BindProblem] {
        var problems: [BindProblem] = []
        for port in ports where channels[port] == nil {
            do {
                let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .channelOption(.socketOption(.so_reuseaddr), value: 1)
                    .channelOption(.socketOption(.so_broadcast), value: 1)
                    .bind(host: host, port: port) { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>(
                                wrappingChannelSynchronously: channel)
                        }
                    }
                channels[port] = channel
                readers.append(read(channel, port: port))
            } catch {
                problems.append(BindProblem(port: port, reason: Self.reason(error)))
            }
        }
        return problems
    }

    /// Sends `bytes` to `host:port` (the 3.5 solicitation goes to the broadcast address on
    /// 7000) from the first bound socket.
    public func send(_ bytes: [UInt8], to host: String, port: Int) async throws {
        guard let channel = channels.values.first else { throw IOError(errnoCode: ENOTCONN, reason: "no port bound") }
        let address = try SocketAddress(ipAddress: host, port: port)
        let envelope = AddressedEnvelope(remoteAddress: address, data: ByteBuffer(bytes: bytes))
        try await channel.channel.writeAndFlush(envelope)
    }

    /// Closes every socket and ends `datagrams`.
    public func stop() async {
        for reader in readers { reader.cancel() }
        readers = []
        for channel in channels.values { try? await channel.channel.close() }
        channels = [:]
        continuation.finish()
    }

    private func read(
        _ channel: NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>, port: Int
    ) -> Task<Void, Never> {
        let continuation = continuation
        return Task {
            do {
                try await channel.executeThenClose { inbound, _ in
                    for try await envelope in inbound {
                        let source = envelope.remoteAddress.ipAddress ?? "?"
                        continuation.yield(LANDatagram(bytes: envelope.data.bytes, source: source, port: port))
                    }
                }
            } catch {
                return
            }
        }
    }

    private static func reason(_ error: any Error) -> String {
        if let error = error as? IOError {
            switch error.errnoCode {
            case EADDRINUSE: return "in use by another program"
            case EACCES: return "permission denied"
            case EADDRNOTAVAIL: return "no such local address"
            default: return String(describing: error)
            }
        }
        return String(describing: error)
    }
}
