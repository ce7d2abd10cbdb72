import Synchronization
import TuyaCore
import TuyaWire

/// The device side of the Tuya MQTT protocol, minimal: decrypts frames sent to it,
/// applies protocol-5 `dps`, answers protocol 5 with the changed DPs and protocol 31
/// with all of them, as protocol-4 reports. Transport-free, so the in-memory bus and the
/// broker-backed device share it. `reportKey` may differ from `key` to play a device
/// whose local key the gateway got wrong: it then answers anything it receives with a
/// full report the gateway cannot decrypt, as such a device's heartbeat would be.
final class FakeTuyaDevice: Sendable {
    let id: String
    private let key: AESKey
    private let reportKey: AESKey
    /// DPs the device takes but never reports (write-only: a counter reset).
    private let unreported: Set<String>
    private struct State {
        var dps: [String: JSONValue]
        var muted = false
        var sequence: UInt32 = 100
        var commandsSeen = 0
    }
    private let state: Mutex<State>

    init(
        id: String, key: String, reportKey: String? = nil, dps: [String: JSONValue], unreported: Set<String> = []
    ) {
        self.id = id
        self.unreported = unreported
        self.key = try! AESKey(localKey: key)
        self.reportKey = try! AESKey(localKey: reportKey ?? key)
        state = Mutex(State(dps: dps))
    }

    var dps: [String: JSONValue] { state.withLock { $0.dps } }
    var commandsSeen: Int { state.withLock { $0.commandsSeen } }

    /// A muted device receives but never answers (powered off, out of range).
    func setMuted(_ muted: Bool) { state.withLock { $0.muted = muted } }

    /// Changes DPs at the device (a button press, a power cycle) without reporting.
    func setLocally(_ changes: [String: JSONValue]) { state.withLock { $0.dps.merge(changes) { _, new in new } } }

    /// The report to publish in answer to `payload`, if any.
    func answer(_ payload: [UInt8]) -> [UInt8]? {
        guard !state.withLock({ $0.muted }) else { return nil }
        guard let decoded = try? MQTTFrame.decode(payload, key: key),
            let (envelope, _) = try? TuyaEnvelope.decode(decoded.body)
        else {
            return key == reportKey ? nil : report(all: true)
        }
        switch envelope {
        case .command(let dps):
            state.withLock { state in
                state.commandsSeen += 1
                state.dps.merge(dps) { _, new in new }
            }
            let reported = dps.filter { !unreported.contains($0.key) }
            return reported.isEmpty ? nil : report(reported)
        case .query:
            return report(all: true)
        default:
            return nil
        }
    }

    /// A protocol-4 report of the given DPs (or of all of them).
    func report(_ dps: [String: JSONValue]? = nil, all: Bool = false) -> [UInt8] {
        let (values, sequence) = state.withLock { state in
            state.sequence &+= 1
            let values = all || dps == nil ? state.dps : dps!
            return (values.filter { !unreported.contains($0.key) }, state.sequence)
        }
        let body = TuyaEnvelope.report(devId: id, dps: values, t: nil).encode(timestamp: 1_700_000_000)
        return try! MQTTFrame.encode(body: body, key: reportKey, sequence: sequence, source: MQTTFrame.deviceSource)
    }
}
