/// One BLE link to one Tuya device as the session sees it: packets of at most
/// `maximumPacketLength` bytes (20 at BLE's default ATT MTU) written to the device's write
/// characteristic (write without response) and packets it notifies (protocol/TUYA.md §1.1).
/// The GATT client implements it over BlueZ; tests join it to a simulated device in memory.
///
/// A transport is reused across connections: `connect()` again after the link dropped.
public protocol TuyaBLETransport: Sendable {
    /// Connects, discovers the Tuya service and enables notifications.
    func connect() async throws
    /// Queues `packets` for the write characteristic, in order after every earlier packet, and
    /// returns without waiting for them to leave: the device link writes from its actor with no
    /// task in between, so the packets of two frames never interleave. A packet that cannot be
    /// written drops the link (the `packets()` stream ends); while not connected, packets are
    /// dropped.
    func write(_ packets: [[UInt8]])
    /// Notified packets, for one consumer; the stream ends when the link drops. The
    /// session asks for it right after `connect()` returns, before it writes anything,
    /// so a device that only answers never speaks before the stream exists.
    func packets() -> AsyncStream<[UInt8]>
    /// Drops the link; the stream from `packets()` ends. Harmless when not connected.
    func disconnect() async
    /// The longest packet the current link carries in one write or notification: ATT_MTU − 3
    /// once `connect()` has agreed on an MTU with the device, else 20. What the device's own
    /// Tuya layer takes may be less: the session learns that from the device (`BLESession`).
    var maximumPacketLength: Int { get }
    /// Where the task reading `packets()` (and a caller sending many commands) best runs: the
    /// thread the current link's packets are read on; nil when there is none or no link.
    var taskExecutor: (any TaskExecutor)? { get }
}

extension TuyaBLETransport {
    /// A link at BLE's default ATT MTU of 23.
    public var maximumPacketLength: Int { 20 }
    public var taskExecutor: (any TaskExecutor)? { nil }
}
