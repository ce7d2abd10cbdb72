import TuyaCore

/// The 3.5 discovery solicitation an app broadcasts to UDP 7000:
/// `{"from":"app","ip":"<the app's address>"}` in a 6699 frame, cmd REQ_DEVINFO (0x25),
/// sealed with the broadcast key. A 3.5 device answers with its announcement, unicast
/// to that address on port 7000 (protocol/TUYA.md §2.1; TT `scanner.send_discovery_request`).
public struct LANSolicitation: Sendable, Hashable {
    /// Where the devices should answer.
    public var ip: String

    public init(ip: String) {
        self.ip = ip
    }

    /// Reads the JSON; `from` must be "app".
    public init(json: [UInt8]) throws(WireError) {
        guard case .object(let root) = try CompactJSON.decode(json) else {
            throw .malformedJSON("the discovery solicitation is not a JSON object")
        }
        guard root["from"]?.stringValue == "app" else {
            throw .invalidField(field: "from", reason: "a solicitation says \"from\":\"app\"")
        }
        guard let ip = root["ip"]?.stringValue else { throw .missingField("ip") }
        self.init(ip: ip)
    }

    public var json: [UInt8] { CompactJSON.encode(.object(["from": .string("app"), "ip": .string(ip)])) }

    /// The datagram to send; `nonce` is 12 fresh random bytes.
    public func encode(sequence: UInt32 = 0, nonce: [UInt8]) throws(WireError) -> [UInt8] {
        try LAN6699Frame.encode(
            sequence: sequence, command: .requestDeviceInfo, payload: json, key: LANDiscovery.broadcastKey,
            nonce: nonce)
    }
}
