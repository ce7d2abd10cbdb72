import TuyaCore

/// The bodies a device sends (protocol/TUYA.md §2.6), for simulated devices: 3.1–3.3
/// `{"devId":…,"dps":{…}}` (STATUS adds `"t"`), 3.4/3.5 `{"protocol":4,"t":…,"data":{"dps":{…}}}`
/// (TT `tools/fake-v35-device.py`; the `"protocol":4` matches MQTT's report, §3.3).
public enum LANDeviceReply {
    /// The answer to DP_QUERY / DP_QUERY_NEW / a device22 query.
    public static func dps(
        version: LANProtocolVersion, devId: String, dps: [String: JSONValue], timestamp: Int64
    ) -> [UInt8] {
        guard version.negotiatesSessionKey else {
            return CompactJSON.encode(.object(["devId": .string(devId), "dps": .object(dps)]))
        }
        return nested(dps: dps, timestamp: timestamp)
    }

    /// A STATUS push of changed DPs.
    public static func status(
        version: LANProtocolVersion, devId: String, dps: [String: JSONValue], timestamp: Int64
    ) -> [UInt8] {
        guard version.negotiatesSessionKey else {
            return CompactJSON.encode(
                .object(["devId": .string(devId), "dps": .object(dps), "t": .integer(timestamp)]))
        }
        return nested(dps: dps, timestamp: timestamp)
    }

    /// The text a device answers to a request it does not accept (TT `_decode_payload`
    /// looks for "data unvalid").
    public static let invalidRequest = Array("json obj data unvalid".utf8)

    private static func nested(dps: [String: JSONValue], timestamp: Int64) -> [UInt8] {
        CompactJSON.encode(
            .object(["protocol": .integer(4), "t": .integer(timestamp), "data": .object(["dps": .object(dps)])]))
    }
}
