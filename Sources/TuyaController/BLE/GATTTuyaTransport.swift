import BLELink
import Synchronization

/// `TuyaBLETransport` over BLELink's GATT client: each `connect()` opens a byte channel
/// (an L2CAP LE socket to the device, or one end of a socketpair to a simulated one),
/// finds the Tuya service, enables notifications and forwards them as packets.
public final class GATTTuyaTransport: TuyaBLETransport {
    /// Opens the channel of one connection.
    public typealias ChannelFactory = @Sendable () async throws -> any ByteChannel

    private struct Link {
        var client: GATTClient?
        var packets: AsyncStream<[UInt8]> = AsyncStream { $0.finish() }
        var forwarder: Task<Void, Never>?
    }

    private let openChannel: ChannelFactory
    private let clock: any Clock<Duration>
    private let link = Mutex(Link())

    public init(clock: any Clock<Duration> = ContinuousClock(), openChannel: @escaping ChannelFactory) {
        self.clock = clock
        self.openChannel = openChannel
    }

    /// A transport to a real device through BlueZ (an L2CAP LE socket on CID 4).
    public static func l2cap(address: String, randomAddress: Bool) -> GATTTuyaTransport {
        GATTTuyaTransport {
            try await L2CAPChannel.connect(address: address, addressType: randomAddress ? .random : .public)
        }
    }

    /// A transport to a device through the gateway's own HCI host (an ATT channel on the host's
    /// LE connection; the attempt gives up after `timeout`).
    public static func hci(
        _ link: HCIControllerLink, address: String, randomAddress: Bool, timeout: Duration = .seconds(10)
    ) -> GATTTuyaTransport {
        GATTTuyaTransport {
            try await link.connect(
                to: address, addressType: randomAddress ? .randomDevice : .publicDevice, timeout: timeout)
        }
    }

    public func connect() async throws {
        await disconnect()
        let channel = try await openChannel()
        let client = GATTClient.connect(over: channel, clock: clock)
        do {
            _ = try await client.discoverTuyaService()
            try await client.enableNotifications()
        } catch {
            await client.close()
            throw error
        }
        let (packets, sink) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .unbounded)
        let notifications = client.notifications
        let forwarder = Task {
            for await packet in notifications { sink.yield(packet) }
            sink.finish()
        }
        link.withLock { $0 = Link(client: client, packets: packets, forwarder: forwarder) }
    }

    public func write(_ packet: [UInt8]) async throws {
        guard let client = link.withLock({ $0.client }) else { throw GATTTransportError.notConnected }
        try await client.writeWithoutResponse(packet)
    }

    public func packets() -> AsyncStream<[UInt8]> {
        link.withLock { $0.packets }
    }

    public func disconnect() async {
        let old = link.withLock { link in
            defer { link = Link() }
            return link
        }
        await old.client?.close()
        old.forwarder?.cancel()
    }
}

public enum GATTTransportError: Error, Hashable, Sendable, CustomStringConvertible {
    case notConnected

    public var description: String { "the BLE link is not connected" }
}
