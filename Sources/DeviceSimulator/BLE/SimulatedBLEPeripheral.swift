import BLELink
import Synchronization
import TuyaCore

/// A simulated Tuya BLE peripheral on the device end of a byte channel: the GATT server a
/// real device runs, with the Tuya device (`SimulatedBLEDevice`) behind its write and
/// notify characteristics. The gateway's GATT client on the other end cannot tell it from
/// hardware: every byte is the real ATT and Tuya BLE protocol.
public actor SimulatedBLEPeripheral {
    private var device: SimulatedBLEDevice
    private var server: SimulatedGATTServer?
    private var connected = false

    public init(device: SimulatedBLEDevice) {
        self.device = device
    }

    /// Serves one connection on `channel` (the device end of `SocketChannel.pair()`).
    public func accept(_ channel: any ByteChannel, layout: TuyaGATTLayout = .a201) {
        device.connect()
        connected = true
        let writes = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .unbounded)
        server = SimulatedGATTServer(channel: channel, layout: layout) { packet in writes.continuation.yield(packet) }
        Task { [weak self] in
            for await packet in writes.stream { await self?.received(packet) }
        }
    }

    private func received(_ packet: [UInt8]) async {
        guard connected else { return }
        await perform(device.receive(packet: packet))
    }

    private func perform(_ actions: [SimulatedBLEDevice.Action]) async {
        for action in actions {
            switch action {
            case .notify(let packet):
                _ = try? await server?.notify(packet)
            case .disconnect:
                await dropLink()
                return
            }
        }
    }

    /// The device drops the link (as after a repeated sn).
    public func dropLink() async {
        connected = false
        device.linkLost()
        await server?.dropLink()
        server = nil
    }

    /// Runs the device's own timers (time requests, countdowns) up to `time`.
    public func advance(to time: Duration) async {
        await perform(device.advance(to: time))
    }

    public var state: DataPoints { device.state }
    public var statistics: SimulatedBLEDevice.Statistics { device.statistics }

    public func setMisbehaviour(_ misbehaviour: SimulatedBLEDevice.Misbehaviour) {
        device.misbehaviour = misbehaviour
    }
}
