import BLELink
import TuyaCore

/// How the controller reaches BLE devices: the adapter's connection slots and a factory
/// for each device's transport. The daemon gives it L2CAP transports through BlueZ
/// (`GATTTuyaTransport.l2cap`); the demo and tests give it socketpairs to simulated
/// peripherals. Without an adapter, `unavailable` makes every connection fail with the
/// reason, so BLE devices stay listed (offline, with the fix as their hint) and keep
/// their desired state until BLE works again.
public struct BLERadio: Sendable {
    /// What the adapter is called in status and `doctor` (`hci0`).
    public var adapter: String?
    /// Why BLE cannot be used here (names the fix); nil when it can.
    public var unavailableReason: String?
    /// Shared by every BLE device link: at most `slots.limit` connections at once, a fair queue.
    public var slots: BLEConnectionSlots
    /// A transport to the device at `identity`; called once per device link.
    public var makeTransport: @Sendable (BLEIdentity) -> any TuyaBLETransport
    /// Problems met by this radio's links, by reason.
    public var failures = BLEFailureTally()
    /// A scan on this radio's controller, for pairing; nil where none can run (simulated radios).
    public var makeScanner: (@Sendable () -> any BLEDeviceScanning)?

    public init(
        adapter: String?, slots: BLEConnectionSlots = BLEConnectionSlots(),
        makeTransport: @escaping @Sendable (BLEIdentity) -> any TuyaBLETransport
    ) {
        self.adapter = adapter
        self.slots = slots
        self.makeTransport = makeTransport
    }

    /// No usable adapter: every connection attempt fails with `reason` (which names the fix).
    public static func unavailable(reason: String) -> BLERadio {
        var radio = BLERadio(adapter: nil, slots: BLEConnectionSlots(limit: 1)) { _ in
            UnavailableBLETransport(reason: reason)
        }
        radio.unavailableReason = reason
        return radio
    }

    /// A radio through BlueZ on the adapter: each device over an L2CAP LE socket.
    public static func bluez(adapter: String, connectionLimit: Int = 3) -> BLERadio {
        var radio = BLERadio(adapter: adapter, slots: BLEConnectionSlots(limit: connectionLimit)) { identity in
            GATTTuyaTransport.l2cap(address: identity.address, randomAddress: identity.randomAddress)
        }
        radio.makeScanner = { BLEScanner(adapter: adapter) }
        return radio
    }

    /// A radio through the gateway's own HCI host (`ble.transport: hci-user:… | h4:… |
    /// h4-tcp:…`): each device over an ATT channel of the host's connection to it, scans through
    /// the host. The host is opened when first needed and again after the controller went away.
    public static func hci(_ link: HCIControllerLink, connectionLimit: Int = 3) -> BLERadio {
        var radio = BLERadio(adapter: link.setting.description, slots: BLEConnectionSlots(limit: connectionLimit)) {
            identity in
            GATTTuyaTransport.hci(link, address: identity.address, randomAddress: identity.randomAddress)
        }
        radio.makeScanner = { link.scanner() }
        return radio
    }
}

/// BLE cannot be used here (no kernel support, no adapter, no permission): says why on every connect.
struct UnavailableBLETransport: TuyaBLETransport {
    let reason: String

    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    func connect() async throws { throw Unavailable(description: "BLE is unavailable: \(reason)") }
    func write(_ packets: [[UInt8]]) {}
    func packets() -> AsyncStream<[UInt8]> { AsyncStream { $0.finish() } }
    func disconnect() async {}
}

/// The adapter's connections at one moment: what `health_check` and `doctor` show.
public struct BLEConnectionsSnapshot: Hashable, Sendable {
    /// nil when BLE cannot be used.
    public var adapter: String?
    public var limit: Int
    /// Devices holding a connection now.
    public var connected: [DeviceID]
    /// Devices waiting for one, oldest first.
    public var waiting: [DeviceID]
    /// Problems met since start, by `BLESessionError.reason`.
    public var failures: [String: Int]

    public init(
        adapter: String?, limit: Int, connected: [DeviceID], waiting: [DeviceID], failures: [String: Int] = [:]
    ) {
        self.adapter = adapter
        self.limit = limit
        self.connected = connected
        self.waiting = waiting
        self.failures = failures
    }
}
