import TuyaCore

extension GatewayHealth {
    /// `<base>/bridge/health`: counts by name, absent values null; `reminders` only while
    /// maintenance is on.
    public struct Payload: Codable, Hashable, Sendable {
        public var uptimeSeconds: Int64
        @NullWhenAbsent public var memoryRSSBytes: Int64?
        public var mqtt: MQTT
        /// Devices by availability (`online`, `offline`, `unknown`), every one present.
        public var devices: [String: Int]
        public var devicesByTransport: [String: Int]
        public var ble: BLE
        /// The running session as `bridge/session` shows it.
        @NullWhenAbsent public var session: JSONValue?
        @NullWhenAbsent public var remindersDue: Int?
        public var reminders: [String: Int]?

        enum CodingKeys: String, CodingKey {
            case mqtt, devices, ble, session, reminders
            case uptimeSeconds = "uptime_seconds"
            case memoryRSSBytes = "memory_rss_bytes"
            case devicesByTransport = "devices_by_transport"
            case remindersDue = "reminders_due"
        }

        /// The bridge's own broker connection, and the device bus's.
        public struct MQTT: Codable, Hashable, Sendable {
            public var messagesIn: Int
            public var messagesOut: Int
            @NullWhenAbsent public var deviceBus: DeviceBus?

            enum CodingKeys: String, CodingKey {
                case messagesIn = "messages_in"
                case messagesOut = "messages_out"
                case deviceBus = "device_bus"
            }
        }

        public struct DeviceBus: Codable, Hashable, Sendable {
            public var messagesIn: Int
            public var messagesOut: Int
            public var reconnects: Int

            enum CodingKeys: String, CodingKey {
                case reconnects
                case messagesIn = "messages_in"
                case messagesOut = "messages_out"
            }
        }

        public struct BLE: Codable, Hashable, Sendable {
            public var connected: Int
            public var waiting: Int
            public var limit: Int
            /// BLE problems since start, by reason.
            public var failures: [String: Int]
        }
    }
}
