import TuyaCore
import TuyaWire

extension LANDeviceLink {
    /// The first sequence number of a new 3.5 link: eight per second since 2024, so a link made
    /// after another one under the same source id (a restart, a re-probe, a rekey) starts above
    /// every number that one used, as long as it averaged fewer than eight frames a second (a
    /// heartbeat every few seconds and commands a frame gap apart are far below): the device
    /// drops numbers it has seen from the source. Wraps after 17 years.
    static func firstSequence(unixTime: Int64) -> UInt32 {
        let since2024 = max(0, unixTime - 1_704_067_200)
        return UInt32(truncatingIfNeeded: since2024 &* 8) | 1
    }

    static func makeSession(
        version: LANProtocolVersion, key: AESKey, endpoint: LANEndpoint, firstSequence: UInt32
    ) -> LANClientSession {
        // 3.5 devices drop repeated sequence numbers per source: keep one source id per
        // device across restarts, and the sequence rising across connections.
        LANClientSession(
            version: version, localKey: key, sourceID: version == .v3_5 ? endpoint.sourceID : nil,
            firstSequence: firstSequence)
    }
}
