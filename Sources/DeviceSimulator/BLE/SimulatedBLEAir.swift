import BLELink

/// The radio space around the gateway for simulated BLE devices: peripherals placed at
/// Bluetooth addresses, and a `connect(to:)` that opens a socketpair to the one at an
/// address, as an L2CAP LE connect would. What flows over it is the real ATT and Tuya BLE
/// protocol; only the socket differs from hardware.
public actor SimulatedBLEAir {
    private struct Placed {
        var peripheral: SimulatedBLEPeripheral
        var layout: TuyaGATTLayout
    }

    private var peripherals: [String: Placed] = [:]

    public init() {}

    /// Puts `peripheral` at `address` (case-insensitive), serving `layout` to each connection.
    public func place(_ peripheral: SimulatedBLEPeripheral, at address: String, layout: TuyaGATTLayout) {
        peripherals[address.uppercased()] = Placed(peripheral: peripheral, layout: layout)
    }

    /// Takes the device at `address` out of range.
    public func remove(address: String) {
        peripherals[address.uppercased()] = nil
    }

    /// Connects to the device at `address`: the gateway's end of a socketpair whose other
    /// end the peripheral serves. Throws `notInRange` when nothing is there.
    public func connect(to address: String) async throws -> any ByteChannel {
        guard let placed = peripherals[address.uppercased()] else { throw SimulatedBLEAirError.notInRange(address) }
        let (gateway, device) = try SocketChannel.pair()
        await placed.peripheral.accept(device, layout: placed.layout)
        return gateway
    }
}

public enum SimulatedBLEAirError: Error, Hashable, Sendable, CustomStringConvertible {
    case notInRange(String)

    public var description: String {
        switch self {
        case .notInRange(let address): "no device answers at \(address.prefix(40)) (connection timed out)"
        }
    }
}
