import Maintenance
import TuyaController
import TuyaCore

/// What the gateway knows about its own health at one moment: the content of
/// `<base>/bridge/health` and the source of the Prometheus gauges. Gathered by the bridge,
/// rendered here without I/O so the payload is tested on its own.
public struct GatewayHealth: Hashable, Sendable {
    public var uptime: Duration
    /// Resident memory in bytes; nil where the platform does not say.
    public var residentMemory: Int64?
    /// Messages the bridge received from and published to the broker since it started.
    public var messagesIn: Int
    public var messagesOut: Int
    /// The device bus's frames and connections (the controller's own broker connection).
    public var deviceBus: DeviceBusStatistics.Snapshot?
    /// Paired devices counted by transport, then availability (every pair present, 0 included).
    public var devices: [Transport: [Availability: Int]]
    public var bleConnected: Int
    public var bleWaiting: Int
    public var bleLimit: Int
    /// BLE problems since start, by reason (`BLESessionError.reason`).
    public var bleFailures: [String: Int]
    /// The running timer session as its bridge JSON, or nil when none runs (or the gateway has no sessions).
    public var session: JSONValue?
    /// Maintenance reminders by state; nil when maintenance is switched off.
    public var reminders: [ReminderStatus: Int]?

    public init(
        uptime: Duration, residentMemory: Int64?, messagesIn: Int, messagesOut: Int,
        devices: [Transport: [Availability: Int]], bleConnected: Int, bleWaiting: Int, bleLimit: Int,
        bleFailures: [String: Int] = [:], deviceBus: DeviceBusStatistics.Snapshot? = nil, session: JSONValue?,
        reminders: [ReminderStatus: Int]?
    ) {
        self.deviceBus = deviceBus
        self.bleFailures = bleFailures
        self.uptime = uptime
        self.residentMemory = residentMemory
        self.messagesIn = messagesIn
        self.messagesOut = messagesOut
        self.devices = devices
        self.bleConnected = bleConnected
        self.bleWaiting = bleWaiting
        self.bleLimit = bleLimit
        self.session = session
        self.reminders = reminders
    }

    /// Counts every device once, under its transport and its availability (`unknown` when
    /// no status is known yet), with a zero for every pair that has none.
    public static func count(_ devices: [(Transport, Availability?)]) -> [Transport: [Availability: Int]] {
        var counts: [Transport: [Availability: Int]] = [:]
        for transport in Transport.allCases {
            counts[transport] = Dictionary(uniqueKeysWithValues: Availability.allCases.map { ($0, 0) })
        }
        for (transport, availability) in devices {
            counts[transport, default: [:]][availability ?? .unknown, default: 0] += 1
        }
        return counts
    }

    /// Reminders that want attention now: due and overdue.
    public var remindersDue: Int? {
        reminders.map { ($0[.due] ?? 0) + ($0[.overdue] ?? 0) }
    }

    /// The `<base>/bridge/health` payload (README "Health and metrics").
    public var json: JSONValue { BridgeJSON.value(payload) }

    /// The `<base>/bridge/health` payload as its `Codable` type.
    public var payload: Payload {
        var byAvailability: [String: Int] = [:]
        var byTransport: [String: Int] = [:]
        for availability in Availability.allCases {
            byAvailability[availability.rawValue] = devices.values.reduce(0) { $0 + ($1[availability] ?? 0) }
        }
        for transport in Transport.allCases {
            byTransport[transport.rawValue] = devices[transport]?.values.reduce(0, +) ?? 0
        }
        return Payload(
            uptimeSeconds: uptime.components.seconds, memoryRSSBytes: residentMemory,
            mqtt: Payload.MQTT(
                messagesIn: messagesIn, messagesOut: messagesOut,
                deviceBus: deviceBus.map {
                    Payload.DeviceBus(messagesIn: $0.messagesIn, messagesOut: $0.messagesOut, reconnects: $0.reconnects)
                }),
            devices: byAvailability, devicesByTransport: byTransport,
            ble: Payload.BLE(connected: bleConnected, waiting: bleWaiting, limit: bleLimit, failures: bleFailures),
            session: session, remindersDue: remindersDue,
            reminders: reminders.map { reminders in
                Dictionary(uniqueKeysWithValues: ReminderStatus.allCases.map { ($0.rawValue, reminders[$0] ?? 0) })
            })
    }
}
