import BLELink
import Synchronization

/// `TuyaBLETransport` over BLELink's GATT client: each `connect()` opens a byte channel
/// (an L2CAP LE socket to the device, or one end of a socketpair to a simulated one), offers
/// the device an ATT MTU of 247 (as BlueZ and phones do; a device that refuses or offers less
/// sets the MTU, 23 at worst), finds the Tuya service and enables notifications; the client's
/// notifications are the packets, and packets are queued on the client as Write Commands.
public final class GATTTuyaTransport: TuyaBLETransport {
    /// Opens the channel of one connection.
    public typealias ChannelFactory = @Sendable () async throws -> any ByteChannel

    private struct Link {
        var client: GATTClient?
        var packets: AsyncStream<[UInt8]> = AsyncStream { $0.finish() }
    }

    /// The ATT MTU offered to every device: 244-byte packets, the largest a Tuya SDK build
    /// takes (its `TUYA_BLE_DATA_MTU_MAX` is 20 to 244), in the 251-byte LE data packet.
    public static let preferredMTU: UInt16 = 247

    private let openChannel: ChannelFactory
    private let clock: any Clock<Duration>
    private let preferredMTU: UInt16
    private let link = Mutex(Link())

    /// `preferredMTU` is the ATT MTU offered to the device; 23 skips the exchange.
    public init(
        clock: any Clock<Duration> = ContinuousClock(), preferredMTU: UInt16 = GATTTuyaTransport.preferredMTU,
        openChannel: @escaping ChannelFactory
    ) {
        self.clock = clock
        self.preferredMTU = preferredMTU
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
        let client = GATTClient.connect(over: channel, clock: clock, preferredMTU: preferredMTU)
        do {
            // First, as BlueZ does: a device refusing it stays at 23 (`exchangeMTU` throws only
            // for a lost link or a timeout, which end this connection like any other request).
            if preferredMTU > ATTBearer.defaultMTU { _ = try await client.exchangeMTU() }
            _ = try await client.discoverTuyaService()
            try await client.enableNotifications()
        } catch {
            await client.close()
            throw error
        }
        link.withLock { $0 = Link(client: client, packets: client.notifications) }
    }

    public func write(_ packets: [[UInt8]]) {
        guard let client = link.withLock({ $0.client }) else { return }
        for packet in packets {
            do throws(GATTError) {
                try client.enqueueWithoutResponse(packet)
            } catch {
                // The rest of the frame would be garbage to the device: drop this link.
                Task { await client.close() }
                return
            }
        }
    }

    public var maximumPacketLength: Int {
        link.withLock { $0.client?.maximumValueLength } ?? Int(ATTBearer.defaultMTU) - 3
    }

    public var taskExecutor: (any TaskExecutor)? {
        link.withLock { $0.client?.taskExecutor }
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
    }
}
