import Storage
import TuyaController
import TuyaCore
import TuyaWire

/// The controller's `DeviceStore` on the SQLite database: paired devices, their local
/// keys and desired state survive restarts. An adapter, because Storage may not import
/// TuyaController (ARCHITECTURE.md: Storage imports TuyaCore and GRDB only).
public struct SQLiteDeviceStore: DeviceStore {
    public let database: GatewayDatabase
    /// Whether desired states go into the next group commit without waiting for it: then
    /// `saveDesired` returns once its state is queued, and `queueDesired` takes states from
    /// device links' threads (the daemon, where commands change desired states faster than
    /// one sync each; it flushes the queue before closing the database). Otherwise
    /// `saveDesired` returns once its state is committed and `queueDesired` declines.
    public let queuesDesiredStates: Bool

    public init(database: GatewayDatabase, queuesDesiredStates: Bool = false) {
        self.database = database
        self.queuesDesiredStates = queuesDesiredStates
    }

    /// Every stored device the controller can drive.
    public func loadDevices() async throws -> [StoredDevice] { try await loadAll().devices }

    /// Every stored device, those that cannot be driven apart: a key that no longer makes an
    /// AES key or a row that cannot be read (edited by hand) is reported with why, rather
    /// than stopping every other device from loading.
    public func loadAll() async throws -> DeviceLoad {
        let stored = try await database.loadDevices()
        var load = DeviceLoad(devices: [])
        for record in stored.records {
            guard let key = try? AESKey(localKey: record.localKey.text) else {
                load.inactive.append(InactiveDevice(device: record.device, reason: .unusableKey))
                continue
            }
            load.devices.append(
                StoredDevice(
                    device: record.device, localKey: key, desired: record.desired, confirmed: record.confirmed,
                    ble: record.ble, lan: record.lan))
        }
        for damaged in stored.damaged {
            if let device = damaged.device {
                load.inactive.append(InactiveDevice(device: device, reason: .damagedRecord(damaged.problem)))
            } else if let id = damaged.id {
                load.inactive.append(.damaged(id: id, name: damaged.name, problem: damaged.problem))
            } else {
                load.unreadable.append(damaged.description)
            }
        }
        return load
    }

    public func save(_ device: StoredDevice) async throws {
        let text = String(decoding: device.localKey.bytes, as: UTF8.self)
        try await database.saveDevice(device.device, localKey: LocalKey(text), ble: device.ble, lan: device.lan)
        try await database.saveDesired(device.desired, for: device.device.id)
    }

    public func saveDesired(_ desired: DataPoints, for id: DeviceID) async throws {
        let commit = database.queueDesired(desired, for: id)
        guard !queuesDesiredStates else { return }
        if let failure = await database.waitForCommit(commit) { throw failure }
    }

    /// Queued for the next group commit when this store queues desired states (the daemon).
    public func queueDesired(_ desired: DataPoints, for id: DeviceID) -> Bool {
        guard queuesDesiredStates else { return false }
        database.queueDesired(desired, for: id)
        return true
    }

    public func saveLANEndpoint(_ endpoint: LANEndpoint, for id: DeviceID) async throws {
        try await database.saveLANEndpoint(endpoint, for: id)
    }

    public func rename(_ id: DeviceID, to name: String) async throws {
        try await database.rename(id, to: name)
    }

    public func remove(_ id: DeviceID) async throws {
        try await database.remove(id)
    }
}
