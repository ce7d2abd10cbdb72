import TuyaCore
import TuyaWire

/// One MQTT pairing (or rekey) as a pure value: the protocol-31 query to send with the
/// candidate key, and what each frame on the device's `out` topic means for the outcome.
struct MQTTPairingProbe: Sendable {
    /// What a frame decided.
    enum Decision: Sendable {
        /// Not for this attempt (garbage, another device's report, not a report).
        case ignore
        /// The attempt is over with this outcome (nothing to save).
        case finish(PairingOutcome)
        /// The device answered with a decryptable report that a profile fits: save it, then
        /// it is paired.
        case save(StoredDevice, DeviceProfile)
    }

    let key: AESKey
    /// For a rekey: the device as it was, whose name, profile and state carry over.
    let previous: StoredDevice?
    private(set) var attempt: PairingAttempt

    init(request: PairingAttempt.Request, key: AESKey, previous: StoredDevice?, library: ProfileLibrary) {
        self.key = key
        self.previous = previous
        attempt = PairingAttempt(request: request, library: library)
    }

    var id: DeviceID { attempt.request.id }

    /// The query that asks the device to report, encrypted with the candidate key.
    func query(timestamp: Int64, sequence: UInt32) throws(WireError) -> [UInt8] {
        let body = TuyaEnvelope.query(dpIDs: nil).encode(timestamp: timestamp)
        return try MQTTFrame.encode(body: body, key: key, sequence: sequence, source: MQTTDeviceLink.gatewaySource)
    }

    /// A payload from `smart/device/out/<devId>`.
    mutating func receive(_ payload: [UInt8]) -> Decision {
        let body: [UInt8]
        do throws(WireError) {
            body = try MQTTFrame.decode(payload, key: key).body
        } catch {
            // An intact frame on this device's own topic that the key cannot open: the key
            // is wrong, and waiting out the deadline would tell the user nothing more.
            guard case .keyMismatch = error else { return .ignore }
            attempt.receivedKeyMismatch()
            return .finish(attempt.outcomeAtDeadline)
        }
        guard let (envelope, _) = try? TuyaEnvelope.decode(body), case .report(let devId, let dps, _) = envelope,
            devId == nil || devId == id.rawValue
        else { return .ignore }
        let dpIDs = Set(dps.keys.compactMap { DataPointID(jsonKey: $0) })
        let (outcome, profile) = attempt.receivedReport(dpIDs: dpIDs)
        guard case .paired(let device) = outcome, let profile else { return .finish(outcome) }
        return .save(
            StoredDevice(
                device: device, localKey: key, desired: previous?.desired ?? [:],
                confirmed: previous?.confirmed ?? [:]),
            profile)
    }
}
