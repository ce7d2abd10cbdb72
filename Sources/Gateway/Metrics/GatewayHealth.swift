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
    public var json: JSONValue {
        var byAvailability: [String: JSONValue] = [:]
        var byTransport: [String: JSONValue] = [:]
        for availability in Availability.allCases {
            byAvailability[availability.rawValue] = .integer(
                Int64(devices.values.reduce(0) { $0 + ($1[availability] ?? 0) }))
        }
        for transport in Transport.allCases {
            byTransport[transport.rawValue] = .integer(Int64(devices[transport]?.values.reduce(0, +) ?? 0))
        }
        var fields: [String: JSONValue] = [
            "uptime_seconds": .integer(uptime.components.seconds),
            "memory_rss_bytes": residentMemory.map(JSONValue.integer) ?? .null,
            "mqtt": .object([
                "messages_in": .integer(Int64(messagesIn)), "messages_out": .integer(Int64(messagesOut)),
                "device_bus": deviceBus.map {
                    .object([
                        "messages_in": .integer(Int64($0.messagesIn)), "messages_out": .integer(Int64($0.messagesOut)),
                        "reconnects": .integer(Int64($0.reconnects)),
                    ])
                } ?? .null,
            ]),
            "devices": .object(byAvailability),
            "devices_by_transport": .object(byTransport),
            "ble": .object([
                "connected": .integer(Int64(bleConnected)), "waiting": .integer(Int64(bleWaiting)),
                "limit": .integer(Int64(bleLimit)),
                "failures": .object(bleFailures.mapValues { .integer(Int64($0)) }),
            ]),
            "session": session ?? .null,
            "reminders_due": remindersDue.map { .integer(Int64($0)) } ?? .null,
        ]
        if let reminders {
            fields["reminders"] = .object(
                Dictionary(
                    uniqueKeysWithValues: ReminderStatus.allCases.map {
                        ($0.rawValue, .integer(Int64(reminders[$0] ?? 0)))
                    }))
        }
        return .object(fields)
    }
}
