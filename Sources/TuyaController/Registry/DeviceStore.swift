import Synchronization
import TuyaCore
import TuyaWire

/// Where the controller keeps paired devices, their local keys and their desired state
/// across restarts. The controller calls it; the SQLite implementation lives in Storage.
public protocol DeviceStore: Sendable {
    func loadDevices() async throws -> [StoredDevice]
    /// `loadDevices()` with what it leaves out: devices stored in a way the controller cannot
    /// drive (a key that makes no AES key, a damaged row), each with why.
    func loadAll() async throws -> DeviceLoad
    /// Adds or replaces a device and its key.
    func save(_ device: StoredDevice) async throws
    /// Records what the user last asked the device to hold, re-applied after reconnects.
    func saveDesired(_ desired: DataPoints, for id: DeviceID) async throws
    /// Queues the desired state to be saved and returns at once, without waiting for it or
    /// for any actor: a device link calls it on its own thread for every command. A device's
    /// states are saved in the order queued (the last one queued wins). Returns false when
    /// this store cannot queue without waiting; the controller then calls `saveDesired` from
    /// a task of its own (the default).
    func queueDesired(_ desired: DataPoints, for id: DeviceID) -> Bool
    /// Records a LAN device's new address or protocol version.
    func saveLANEndpoint(_ endpoint: LANEndpoint, for id: DeviceID) async throws
    /// Changes a device's friendly name.
    func rename(_ id: DeviceID, to name: String) async throws
    func remove(_ id: DeviceID) async throws
}

extension DeviceStore {
    public func queueDesired(_ desired: DataPoints, for id: DeviceID) -> Bool { false }
    public func loadAll() async throws -> DeviceLoad { DeviceLoad(devices: try await loadDevices()) }
}

/// One paired device as persisted: its public description, its secret and its desired state.
/// The key is an `AESKey`, whose description is redacted, so printing this leaks nothing.
public struct StoredDevice: Sendable, Hashable {
    public var device: TuyaDevice
    public var localKey: AESKey
    public var desired: DataPoints
    /// The last values the device itself reported, so its state is known at start before
    /// it answers (the controller does not save these; the gateway records them).
    public var confirmed: DataPoints
    /// For a BLE device: where it is and the uuid its pairing needs.
    public var ble: BLEIdentity?
    /// For a LAN device: its address, protocol version and 3.5 source id.
    public var lan: LANEndpoint?

    public init(
        device: TuyaDevice, localKey: AESKey, desired: DataPoints = [:], confirmed: DataPoints = [:],
        ble: BLEIdentity? = nil, lan: LANEndpoint? = nil
    ) {
        self.lan = lan
        self.device = device
        self.localKey = localKey
        self.desired = desired
        self.confirmed = confirmed
        self.ble = ble
    }
}

/// A `DeviceStore` that forgets everything on exit: for tests and until Storage lands.
public actor InMemoryDeviceStore: DeviceStore {
    private var devices: [DeviceID: StoredDevice]
    /// Desired states queued from links' threads (`queueDesired`), the last one per device;
    /// every method applies them before it reads or changes a device.
    private nonisolated let queued = Mutex<[DeviceID: DataPoints]>([:])

    public init(devices: [StoredDevice] = []) {
        self.devices = Dictionary(devices.map { ($0.device.id, $0) }, uniquingKeysWith: { _, later in later })
    }

    private func applyQueued() {
        let queued = self.queued.withLock { queue in
            let taken = queue
            queue = [:]
            return taken
        }
        for (id, desired) in queued { devices[id]?.desired = desired }
    }

    public func loadDevices() -> [StoredDevice] {
        applyQueued()
        return devices.values.sorted { $0.device.id < $1.device.id }
    }

    public func save(_ device: StoredDevice) {
        applyQueued()
        devices[device.device.id] = device
    }

    public func saveDesired(_ desired: DataPoints, for id: DeviceID) {
        applyQueued()
        devices[id]?.desired = desired
    }

    public nonisolated func queueDesired(_ desired: DataPoints, for id: DeviceID) -> Bool {
        queued.withLock { $0[id] = desired }
        return true
    }

    public func rename(_ id: DeviceID, to name: String) {
        applyQueued()
        devices[id]?.device.name = name
    }

    public func saveLANEndpoint(_ endpoint: LANEndpoint, for id: DeviceID) {
        applyQueued()
        devices[id]?.lan = endpoint
    }

    public func remove(_ id: DeviceID) {
        applyQueued()
        devices[id] = nil
    }
}
