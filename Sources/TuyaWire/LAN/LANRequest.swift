import TuyaCore

/// A request to a device: the command and its compact JSON body in the form each protocol
/// version expects (protocol/TUYA.md §2.6, TT `XenonDevice.payload_dict` and
/// `generate_payload`). Timestamps are arguments, never read from a clock here.
public struct LANRequest: Sendable, Hashable {
    public var command: LANCommand
    public var json: [UInt8]

    public init(command: LANCommand, json: [UInt8]) {
        self.command = command
        self.json = json
    }

    /// Sets DPs. 3.1–3.3: CONTROL `{"devId":id,"uid":id,"t":"<s>","dps":{…}}` (`t` a
    /// string); 3.4/3.5: CONTROL_NEW `{"protocol":5,"t":<s>,"data":{"dps":{…}}}`.
    public static func control(
        version: LANProtocolVersion, devId: String, dps: [String: JSONValue], timestamp: Int64
    ) -> LANRequest {
        guard version.negotiatesSessionKey else {
            return LANRequest(
                command: .control,
                json: CompactJSON.encode(
                    .object([
                        "devId": .string(devId), "uid": .string(devId), "t": .string(String(timestamp)),
                        "dps": .object(dps),
                    ])))
        }
        return LANRequest(
            command: .controlNew,
            json: CompactJSON.encode(
                .object([
                    "protocol": .integer(5), "t": .integer(timestamp), "data": .object(["dps": .object(dps)]),
                ])))
    }

    /// Reads every DP. 3.1–3.3: DP_QUERY `{"gwId":id,"devId":id,"uid":id,"t":"<s>"}`;
    /// 3.4/3.5: DP_QUERY_NEW `{}`.
    public static func query(version: LANProtocolVersion, devId: String, timestamp: Int64) -> LANRequest {
        guard version.negotiatesSessionKey else {
            return LANRequest(
                command: .dpQuery,
                json: CompactJSON.encode(
                    .object([
                        "gwId": .string(devId), "devId": .string(devId), "uid": .string(devId),
                        "t": .string(String(timestamp)),
                    ])))
        }
        return LANRequest(command: .dpQueryNew, json: Array("{}".utf8))
    }

    /// The query of a "device22" device (a 22-character devId on 3.2/3.3 that answers a
    /// plain DP_QUERY with "data unvalid"): CONTROL_NEW `{"devId","uid","t","dps":{"1":null,…}}`
    /// naming the DPs to read.
    public static func device22Query(devId: String, dpIDs: [Int], timestamp: Int64) -> LANRequest {
        var dps: [String: JSONValue] = [:]
        for id in dpIDs { dps[String(id)] = .null }
        return LANRequest(
            command: .controlNew,
            json: CompactJSON.encode(
                .object([
                    "devId": .string(devId), "uid": .string(devId), "t": .string(String(timestamp)),
                    "dps": .object(dps),
                ])))
    }

    /// Keeps the connection alive: HEART_BEAT `{"gwId":id,"devId":id}`, every version. The
    /// device answers with an empty HEART_BEAT.
    public static func heartbeat(devId: String) -> LANRequest {
        LANRequest(
            command: .heartBeat, json: CompactJSON.encode(.object(["gwId": .string(devId), "devId": .string(devId)])))
    }

    /// Asks the device to refresh and push the given DPs: UPDATEDPS `{"dpId":[…]}`.
    public static func updateDPs(_ dpIDs: [Int]) -> LANRequest {
        LANRequest(
            command: .updateDPs, json: CompactJSON.encode(.object(["dpId": .array(dpIDs.map { .integer(Int64($0)) })])))
    }
}
