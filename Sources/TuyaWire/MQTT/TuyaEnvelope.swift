import TuyaCore

/// The JSON envelope inside a Tuya MQTT payload, `{"protocol":n,"t":<unix s>,"data":{…}}`
/// (protocol/TUYA.md §3.3, TCK `MQTT_REPORT_FMT`), with typed cases for the protocol
/// numbers the gateway acts on. Protocol 4 is the device's report and 5 the command.
///
/// The timestamp is an argument of `encode` and a result of `decode`, never read from
/// a clock here, so frames are reproducible in tests.
public enum TuyaEnvelope: Sendable, Hashable {
    /// Protocol 4, device → cloud: `data = {"devId":…,"dps":{…},"t":…}`; `devId` and
    /// the inner `t` are optional.
    case report(devId: String?, dps: [String: JSONValue], t: Int64?)
    /// Protocol 5, cloud → device: `data = {"dps":{…}}` (TCK reads only `dps`).
    case command(dps: [String: JSONValue])
    /// Protocol 31, cloud → device: `data = {}` for every DP, or `{"dpId":[…]}`.
    case query(dpIDs: [Int]?)
    /// Any other protocol number, with `data` as it came.
    case other(protocol: Int, data: JSONValue)

    public static let reportProtocol = 4
    public static let commandProtocol = 5
    public static let queryProtocol = 31

    public var protocolNumber: Int {
        switch self {
        case .report: Self.reportProtocol
        case .command: Self.commandProtocol
        case .query: Self.queryProtocol
        case .other(let number, _): number
        }
    }

    /// Compact JSON with the keys in TCK's order: protocol, t, data.
    public func encode(timestamp: Int64) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        JSONWriter.appendASCII(#"{"protocol":"#, to: &out)
        JSONWriter.writeInteger(Int64(protocolNumber), into: &out)
        JSONWriter.appendASCII(#","t":"#, to: &out)
        JSONWriter.writeInteger(timestamp, into: &out)
        JSONWriter.appendASCII(#","data":"#, to: &out)
        switch self {
        case .report(let devId, let dps, let t):
            out.append(UInt8(ascii: "{"))
            if let devId {
                JSONWriter.appendASCII(#""devId":"#, to: &out)
                JSONWriter.writeString(devId, into: &out)
                out.append(UInt8(ascii: ","))
            }
            JSONWriter.appendASCII(#""dps":"#, to: &out)
            JSONWriter.writeObject(dps, into: &out)
            if let t {
                JSONWriter.appendASCII(#","t":"#, to: &out)
                JSONWriter.writeInteger(t, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .command(let dps):
            JSONWriter.appendASCII(#"{"dps":"#, to: &out)
            JSONWriter.writeObject(dps, into: &out)
            out.append(UInt8(ascii: "}"))
        case .query(let dpIDs):
            guard let dpIDs else {
                JSONWriter.appendASCII("{}", to: &out)
                break
            }
            JSONWriter.appendASCII(#"{"dpId":["#, to: &out)
            for (position, id) in dpIDs.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.writeInteger(Int64(id), into: &out)
            }
            JSONWriter.appendASCII("]}", to: &out)
        case .other(_, let data):
            JSONWriter.write(data, into: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// Parses a decrypted body. `protocol`, `t` and `data` must all be present (TCK
    /// rejects an incoming frame without them); errors name the field.
    public static func decode(_ bytes: [UInt8]) throws(WireError) -> (envelope: TuyaEnvelope, timestamp: Int64) {
        guard case .object(let root) = try CompactJSON.decode(bytes) else {
            throw .malformedJSON("the envelope is not a JSON object at byte 0")
        }
        guard let protocolValue = root["protocol"] else { throw .missingField("protocol") }
        guard let number = integer(protocolValue), let protocolNumber = Int(exactly: number) else {
            throw .invalidField(field: "protocol", reason: "not an integer")
        }
        guard let timeValue = root["t"] else { throw .missingField("t") }
        guard let timestamp = integer(timeValue) else {
            throw .invalidField(field: "t", reason: "not an integer timestamp")
        }
        guard let data = root["data"] else { throw .missingField("data") }

        let envelope: TuyaEnvelope
        switch protocolNumber {
        case reportProtocol:
            let members = try object(data, field: "data")
            var devId: String?
            if let value = members["devId"] {
                guard let string = value.stringValue else {
                    throw .invalidField(field: "data.devId", reason: "not a string")
                }
                devId = string
            }
            var innerTime: Int64?
            if let value = members["t"] {
                guard let time = integer(value) else {
                    throw .invalidField(field: "data.t", reason: "not an integer timestamp")
                }
                innerTime = time
            }
            envelope = .report(devId: devId, dps: try dps(in: members), t: innerTime)
        case commandProtocol:
            envelope = .command(dps: try dps(in: try object(data, field: "data")))
        case queryProtocol:
            let members = try object(data, field: "data")
            guard let list = members["dpId"] else {
                envelope = .query(dpIDs: nil)
                break
            }
            guard case .array(let elements) = list else {
                throw .invalidField(field: "data.dpId", reason: "not an array")
            }
            var ids: [Int] = []
            ids.reserveCapacity(elements.count)
            for element in elements {
                guard let id = integer(element), let small = Int(exactly: id), small >= 0 else {
                    throw .invalidField(field: "data.dpId", reason: "holds a value that is not a DP id")
                }
                ids.append(small)
            }
            envelope = .query(dpIDs: ids)
        default:
            envelope = .other(protocol: protocolNumber, data: data)
        }
        return (envelope, timestamp)
    }

    /// Only exact integers count: a timestamp or DP id written as `1.5` is invalid.
    private static func integer(_ value: JSONValue) -> Int64? {
        if case .integer(let number) = value { return number }
        return nil
    }

    private static func object(_ value: JSONValue, field: String) throws(WireError) -> [String: JSONValue] {
        guard case .object(let members) = value else { throw .invalidField(field: field, reason: "not an object") }
        return members
    }

    private static func dps(in data: [String: JSONValue]) throws(WireError) -> [String: JSONValue] {
        guard let value = data["dps"] else { throw .missingField("data.dps") }
        return try object(value, field: "data.dps")
    }
}
