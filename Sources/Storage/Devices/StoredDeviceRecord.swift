import Foundation
import TuyaCore

/// One paired device as the database holds it: its public description, its local key,
/// when it was paired, and its desired and last confirmed data points.
public struct StoredDeviceRecord: Sendable, Hashable, CustomStringConvertible {
    public var device: TuyaDevice
    public var localKey: LocalKey
    public var createdAt: Date
    /// What the user last asked the device to hold, re-applied after reconnects.
    public var desired: DataPoints
    /// What the device last reported holding, and when.
    public var confirmed: DataPoints
    public var confirmedAt: Date?
    /// For a BLE device: its address and uuid.
    public var ble: BLEIdentity?
    /// For a LAN device: its address, protocol version and source id.
    public var lan: LANEndpoint?

    public init(
        device: TuyaDevice, localKey: LocalKey, createdAt: Date, desired: DataPoints = [:],
        confirmed: DataPoints = [:], confirmedAt: Date? = nil, ble: BLEIdentity? = nil, lan: LANEndpoint? = nil
    ) {
        self.lan = lan
        self.device = device
        self.localKey = localKey
        self.createdAt = createdAt
        self.desired = desired
        self.confirmed = confirmed
        self.confirmedAt = confirmedAt
        self.ble = ble
    }

    public var description: String {
        "\(device.id) \"\(device.name)\" (\(device.profileID), \(device.transport.rawValue), key <redacted>)"
    }
}

/// The paired devices as stored: those this binary can use, and the rows it cannot.
public struct StoredDevices: Sendable, Hashable {
    public var records: [StoredDeviceRecord] = []
    public var damaged: [DamagedDeviceRecord] = []

    public init(records: [StoredDeviceRecord] = [], damaged: [DamagedDeviceRecord] = []) {
        self.records = records
        self.damaged = damaged
    }
}

/// A stored device row this binary cannot use (edited by hand, or written by something
/// else): kept in the database and reported, so every other device still loads.
public struct DamagedDeviceRecord: Error, Sendable, Hashable, CustomStringConvertible {
    /// The row's id as stored.
    public var rawID: String
    /// The id, when it reads: the device can then be listed, kept in Home Assistant and removed.
    public var id: DeviceID?
    /// The name as stored (the id when it does not read).
    public var name: String
    /// The device the row still names, when its category and transport read too.
    public var device: TuyaDevice?
    /// What cannot be read ("its desired state"); never a key.
    public var problem: String

    public init(
        rawID: String, id: DeviceID? = nil, name: String? = nil, device: TuyaDevice? = nil, problem: String
    ) {
        self.rawID = rawID
        self.id = id
        self.name = name ?? rawID
        self.device = device
        self.problem = problem
    }

    public var description: String {
        "the stored row of device \(GatewayDatabase.shown(rawID)) is damaged: \(problem) cannot be read"
    }
}
