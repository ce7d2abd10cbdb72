import TuyaCore

/// Reads the DP values out of a device's JSON, whichever version wrote it
/// (protocol/TUYA.md §2.6): 3.1–3.3 put them at the top level (`{"devId":…,"dps":{…}}`),
/// 3.4/3.5 under `data` (`{"protocol":4,"t":…,"data":{"dps":{…}}}`). Requests are read the
/// same way, so the simulator uses it for CONTROL and CONTROL_NEW bodies as well.
public enum LANDataPoints {
    /// The `dps` object, nil when the body has none (an ack, a heartbeat answer). Throws
    /// when the body is not JSON or `dps` is not an object.
    /// The whole body is checked as `CompactJSON.decode` checks it, but only `dps` becomes
    /// values (a device's answer is read on every report).
    public static func dps(in json: [UInt8]) throws(WireError) -> [String: JSONValue]? {
        guard !json.isEmpty else { return nil }
        let body = try CompactJSON.lanBody(json)
        guard body.isObject else { throw .malformedJSON("the LAN body is not a JSON object") }
        if let dps = body.dps { return try object(dps, field: "dps") }
        if let dps = body.dataDPS { return try object(dps, field: "data.dps") }
        return nil
    }

    /// Whether a device's answer says it wants the device22 query: tinytuya switches when a
    /// reply contains "data unvalid" (TT `_decode_payload`).
    public static func asksForDevice22Query(_ payload: [UInt8]) -> Bool {
        let needle = Array("data unvalid".utf8)
        guard payload.count >= needle.count else { return false }
        for start in 0...(payload.count - needle.count)
        where payload[start..<(start + needle.count)].elementsEqual(needle) {
            return true
        }
        return false
    }

    private static func object(_ value: JSONValue, field: String) throws(WireError) -> [String: JSONValue] {
        guard case .object(let members) = value else { throw .invalidField(field: field, reason: "not an object") }
        return members
    }
}
