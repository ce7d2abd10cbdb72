import TuyaCore
import TuyaWire

/// The gateway's side of one Tuya BLE connection (protocol/TUYA.md §1.9) as a pure
/// state machine: link events, notified packets and clock ticks go in, packets to write
/// and results come out. The device link performs the actions.
///
/// On `connected`: sn restarts at 1 → device info (0x0000, login key) → session key from
/// the srand → pair (0x0001; 0 and 2 are paired, 1 is refused) → `ready` and a query of
/// every DP (0x0003). Then DP writes go out as 0x0002 (protocol 3) or 0x0027 (4), time
/// requests (0x8011/0x8012) are answered and every report (0x8001, 0x8003, 0x8006,
/// 0x8007) is acknowledged. Each frame sent takes the next sn, so sn strictly increases
/// per connection.
///
/// A request unanswered within `responseTimeout` ends the session (`fail`); broken
/// packets and frames are reported (`problem`) and skipped, never fatal.
///
/// Packet size (protocol/TUYA.md §1.3): frames go out in 20-byte packets until the device has
/// shown it takes more. On a link whose ATT MTU allows longer packets, the device-info request
/// carries the app's packet length (the SDK's v4 handler sends its frames in packets of that
/// length when its build allows it, else in 20-byte ones; v2/v3 ignore it and send 20), and
/// the gateway's packets then grow to the longest packet the device has sent: the SDK sends
/// packets no longer than the longest it accepts (`TUYA_BLE_DATA_MTU_MAX`) and drops longer
/// ones, so a device that keeps to 20 bytes is written 20 bytes at a time.
struct BLESession: Sendable {
    struct Credentials: Sendable, CustomStringConvertible, CustomReflectable {
        /// The 16-character device uuid the pair request carries.
        var uuid: String
        /// The 16-character local key; `description` and reflection never show it.
        var localKey: String
        var devId: String

        var description: String { "Credentials(uuid: \(uuid), devId: \(devId), localKey: <redacted>)" }
        var customMirror: Mirror { Mirror(reflecting: description) }
    }

    struct Configuration: Hashable, Sendable {
        var responseTimeout: Duration = .seconds(60)
        /// The UTC offset sent in time replies.
        var utcOffsetSeconds: Int = 0
        var maxFrameLength = BLEReassembler.defaultMaxFrameLength
    }

    enum Phase: Hashable, Sendable {
        case disconnected
        case awaitingDeviceInfo
        case awaitingPair
        case ready
        /// Failed; waiting for the caller to drop the link.
        case closed
    }

    enum Action: Hashable, Sendable {
        /// Write this packet to the write characteristic (in order).
        case write([UInt8])
        /// Paired: DP traffic may flow. `alreadyBound` when pairing answered 2.
        case ready(protocolVersion: UInt8, alreadyBound: Bool)
        /// Values the device reported (enum indices already turned into labels).
        case report(DataPoints)
        /// Something was wrong with one packet or frame; the session continues.
        case problem(BLESessionError)
        /// The session is over: drop the link.
        case fail(BLESessionError)
    }

    private struct Pending: Sendable {
        var command: BLECommand
        var deadline: Duration
    }

    let credentials: Credentials
    let profile: DeviceProfile
    var configuration: Configuration
    private(set) var phase: Phase = .disconnected
    private(set) var protocolVersion: UInt8 = 2
    /// The last sn the device sent on this connection (0 before its first frame): its sn
    /// grows with every frame, so one that does not is a replay or a duplicate.
    private var lastDeviceSN: UInt32 = 0
    /// The last sn sent on this connection (0 before the first frame).
    private(set) var lastSN: UInt32 = 0
    private var keys: BLEKeys?
    private var reassembler: BLEReassembler
    /// After a broken frame: skip its remaining packets until the next packet 0.
    private var discarding = false
    private var pending: [UInt32: Pending] = [:]
    private var dpWriteSN: UInt32 = 0
    private var ivSource: any IVSource
    /// The longest packet the link carries (ATT_MTU − 3), set at `connected`.
    private var linkPacketLength = BLEFragmenter.defaultMTU
    /// The longest packet the device has sent on this connection (20 before it sent any).
    private var devicePacketLength = BLEFragmenter.defaultMTU

    /// The app packet length the device-info request announces: what the link carries, at most
    /// 243 (HTB announces `00 F3`; the SDK falls back to 20 when the number is above its
    /// `TUYA_BLE_DATA_MTU_MAX`, which builds set to 243 or 244).
    static let announcedPacketLengthLimit = 243

    /// The length of the packets the gateway writes now.
    var packetLength: Int { min(linkPacketLength, devicePacketLength) }

    init(
        credentials: Credentials, profile: DeviceProfile, configuration: Configuration = Configuration(),
        ivSource: any IVSource = RandomIVSource()
    ) {
        self.credentials = credentials
        self.profile = profile
        self.configuration = configuration
        self.ivSource = ivSource
        reassembler = BLEReassembler(maxFrameLength: configuration.maxFrameLength)
    }

    /// The earliest response deadline, for the caller's timer.
    var nextWake: Duration? { pending.values.map(\.deadline).min() }

    /// True while a request waits for its answer.
    var isBusy: Bool { !pending.isEmpty }

    // MARK: - Link events

    /// The transport connected and enabled notifications: start the handshake.
    /// `maximumPacketLength` is the longest packet the link carries (ATT_MTU − 3).
    mutating func connected(now: Duration, maximumPacketLength: Int = BLEFragmenter.defaultMTU) -> [Action] {
        reset()
        do throws(WireError) {
            keys = try BLEKeys(localKey: credentials.localKey)
        } catch {
            phase = .closed
            return [.fail(.wrongKey)]
        }
        phase = .awaitingDeviceInfo
        linkPacketLength = max(BLEFragmenter.defaultMTU, maximumPacketLength)
        // At the default MTU the body stays empty, as HTB sends it (protocol/TUYA.md §1.6).
        let announced = min(linkPacketLength, Self.announcedPacketLengthLimit)
        let request =
            announced > BLEFragmenter.defaultMTU ? BLEDeviceInfoRequest(mtu: UInt16(announced)) : BLEDeviceInfoRequest()
        return send(.deviceInfo, data: request.encoded, flag: .login, awaiting: true, now: now)
    }

    /// The link dropped (either side).
    mutating func disconnected() {
        reset()
    }

    /// Response deadlines.
    mutating func tick(now: Duration) -> [Action] {
        guard let (_, late) = pending.first(where: { $0.value.deadline <= now }) else { return [] }
        let error: BLESessionError =
            late.command == .deviceInfo
            ? .deviceInfoUnanswered : .responseTimeout(command: late.command.name, after: configuration.responseTimeout)
        return fail(error)
    }

    // MARK: - Requests

    /// Writes DPs: 0x0002 with a v3 KLV list on protocol 3, 0x0027 on protocol 4.
    /// Values the profile cannot encode are left out; nothing is sent when none remain.
    mutating func write(_ values: DataPoints, now: Duration) -> [Action] {
        guard phase == .ready else { return [] }
        var dataPoints: [BLEDataPoint] = []
        for (id, value) in values.sorted(by: { $0.key < $1.key }) {
            guard let spec = profile.dataPoint(id), let dataPoint = try? BLEDataPoint(value, spec: spec) else {
                continue
            }
            dataPoints.append(dataPoint)
        }
        guard !dataPoints.isEmpty else { return [] }
        let body: [UInt8]?
        let command: BLECommand
        if protocolVersion >= 4 {
            dpWriteSN &+= 1
            command = .dpWriteV4
            body = try? BLEDataPointWriteV4(sn: dpWriteSN, dataPoints: dataPoints).encoded()
        } else {
            command = .dpWriteV3
            body = (try? BLEDataPointList(format: .v3, dataPoints: dataPoints))?.encoded
        }
        guard let body else { return [.problem(.garbledFrame(reason: "DP values do not fit a BLE write"))] }
        return send(command, data: body, flag: .session, awaiting: true, now: now)
    }

    /// Asks for every DP (0x0003); the device reports them afterwards.
    mutating func query(now: Duration) -> [Action] {
        guard phase == .ready else { return [] }
        return send(.query, data: [], flag: .session, awaiting: true, now: now)
    }

    // MARK: - Packets from the device

    /// One notification. `unixMilliseconds` is the wall clock, for time replies.
    mutating func receive(packet: [UInt8], now: Duration, unixMilliseconds: Int64) -> [Action] {
        guard phase != .disconnected, phase != .closed, let keys else { return [] }
        guard let number = try? Varint(bytes: packet) else {
            return skipFrame(.garbledFrame(reason: "a notification without a packet number"))
        }
        devicePacketLength = max(devicePacketLength, packet.count)
        if discarding {
            guard number.value == 0 else { return [] }
            discarding = false
        }
        let wasIdle = reassembler.isIdle
        // A packet 0 restarts reassembly: the frame under way lost its last packets.
        var actions: [Action] = number.value == 0 && !wasIdle ? [.problem(.incompleteFrame)] : []
        let whole: [UInt8]?
        do throws(WireError) {
            whole = try reassembler.receive(packet)
        } catch {
            return actions + skipFrame(Self.transportProblem(error, wasIdle: wasIdle))
        }
        guard let whole else { return actions }
        let frame: BLECommandFrame
        do throws(WireError) {
            frame = try BLEFrameCodec.decrypt(whole, keys: keys).frame
        } catch {
            return actions + undecryptable(error)
        }
        guard frame.sn > lastDeviceSN else {
            return actions + [.problem(.repeatedSequence(sn: frame.sn, last: lastDeviceSN))]
        }
        lastDeviceSN = frame.sn
        actions += handle(frame, now: now, unixMilliseconds: unixMilliseconds)
        return actions
    }

    private mutating func handle(_ frame: BLECommandFrame, now: Duration, unixMilliseconds: Int64) -> [Action] {
        switch frame.command {
        case .dpReportV3, .dpReportV3WithTime, .dpReportV4, .dpReportV4WithTime:
            return report(frame, now: now)
        case .timeRequestString, .timeRequestDate:
            return answerTime(frame, now: now, unixMilliseconds: unixMilliseconds)
        default:
            break
        }
        // An answer: only to a request still waiting, of the same command.
        guard let request = pending[frame.ackSN], request.command == frame.command else { return [] }
        pending[frame.ackSN] = nil
        switch frame.command {
        case .deviceInfo: return deviceInfo(frame, now: now)
        case .pair: return paired(frame, now: now)
        case .dpWriteV3:
            return frame.data == [0] ? [] : [.problem(.writeRejected)]
        case .dpWriteV4:
            guard let response = try? BLEDataPointWriteV4Response(bytes: frame.data), response.isSuccess else {
                return [.problem(.writeRejected)]
            }
            return []
        default:
            return []
        }
    }

    private mutating func deviceInfo(_ frame: BLECommandFrame, now: Duration) -> [Action] {
        guard let info = try? BLEDeviceInfo(bytes: frame.data) else {
            return fail(.garbledFrame(reason: "device info of \(frame.data.count) bytes cannot be read"))
        }
        let version = info.protocolVersion.major
        guard version == 3 || version == 4 else { return fail(.unsupportedProtocol(version)) }
        do throws(WireError) {
            try keys?.establishSession(srand: info.srand)
        } catch {
            return fail(.garbledFrame(reason: "device info carries no usable srand"))
        }
        protocolVersion = version
        guard
            let request = try? BLEPairRequest(
                uuid: credentials.uuid, localKey: credentials.localKey, devId: credentials.devId)
        else { return fail(.refused) }
        phase = .awaitingPair
        return send(.pair, data: request.encoded, flag: .session, awaiting: true, now: now)
    }

    private mutating func paired(_ frame: BLECommandFrame, now: Duration) -> [Action] {
        guard let result = try? BLEPairResult(bytes: frame.data) else {
            return fail(.garbledFrame(reason: "pair result \(frame.data) cannot be read"))
        }
        guard result.isPaired else { return fail(.refused) }
        phase = .ready
        return query(now: now) + [.ready(protocolVersion: protocolVersion, alreadyBound: result == .alreadyBound)]
    }

    /// Decodes and acknowledges a report: empty ack for v3, prefix + status for v4.
    private mutating func report(_ frame: BLECommandFrame, now: Duration) -> [Action] {
        let dataPoints: [BLEDataPoint]
        var ack: [UInt8]? = []
        do throws(WireError) {
            if frame.command == .dpReportV4 || frame.command == .dpReportV4WithTime {
                let report = try BLEDataPointReportV4(bytes: frame.data, command: frame.command)
                dataPoints = report.dataPoints
                ack = report.wantsAck ? report.ack() : nil
            } else {
                dataPoints = try BLEDataPointReportV3(bytes: frame.data, command: frame.command).dataPoints
            }
        } catch {
            // Still acknowledged so the device does not resend what cannot be read.
            let ackBody = frame.command.isV4Report && frame.data.count >= 7 ? Array(frame.data.prefix(7)) + [1] : []
            return [.problem(.garbledFrame(reason: "\(frame.command.name): \(error)"))]
                + reply(to: frame, data: ackBody, now: now)
        }
        var values: DataPoints = [:]
        for dataPoint in dataPoints {
            guard let spec = profile.dataPoint(dataPoint.id), let value = try? dataPoint.value(spec: spec) else {
                continue
            }
            values[dataPoint.id] = value
        }
        var actions: [Action] = ack.map { reply(to: frame, data: $0, now: now) } ?? []
        if !values.isEmpty { actions.append(.report(values)) }
        return actions
    }

    private mutating func answerTime(_ frame: BLECommandFrame, now: Duration, unixMilliseconds: Int64) -> [Action] {
        let offset = configuration.utcOffsetSeconds
        let body: [UInt8]?
        if frame.command == .timeRequestString {
            body = (try? BLETimeStringReply(unixMilliseconds: unixMilliseconds, utcOffsetSeconds: offset))?.encoded
        } else {
            body = (try? BLETimeDateReply(unixMilliseconds: unixMilliseconds, utcOffsetSeconds: offset))?.encoded
        }
        guard let body else { return [.problem(.garbledFrame(reason: "cannot express the time for \(frame.command)"))] }
        return reply(to: frame, data: body, now: now)
    }

    // MARK: - Problems

    private mutating func skipFrame(_ problem: BLESessionError) -> [Action] {
        discarding = true
        reassembler.reset()
        return [.problem(problem)]
    }

    private mutating func undecryptable(_ error: WireError) -> [Action] {
        if case .keyMismatch = error, phase == .awaitingDeviceInfo { return fail(.wrongKey) }
        if case .checksumMismatch = error { return [.problem(.corruptFrame)] }
        return [.problem(.garbledFrame(reason: error.description))]
    }

    static func transportProblem(_ error: WireError, wasIdle: Bool) -> BLESessionError {
        switch error {
        case .packetOutOfOrder(let expected, let got):
            wasIdle ? .strayPacket(number: got) : .packetGap(expected: expected, got: got)
        case .lengthOutOfRange(let field, let value, let limit) where field == "BLE frame total length":
            .oversizedFrame(length: value, limit: limit)
        default:
            .garbledFrame(reason: error.description)
        }
    }

    private mutating func fail(_ error: BLESessionError) -> [Action] {
        reset()
        phase = .closed
        return [.fail(error)]
    }

    private mutating func reset() {
        phase = .disconnected
        lastSN = 0
        lastDeviceSN = 0
        keys = nil
        reassembler.reset()
        discarding = false
        pending = [:]
        dpWriteSN = 0
        protocolVersion = 2
        linkPacketLength = BLEFragmenter.defaultMTU
        devicePacketLength = BLEFragmenter.defaultMTU
    }

    // MARK: - Output

    private mutating func reply(to frame: BLECommandFrame, data: [UInt8], now: Duration) -> [Action] {
        send(frame.command, ackSN: frame.sn, data: data, flag: .session, awaiting: false, now: now)
    }

    /// Encrypts and fragments one frame with the next sn. The version nibble is 2 until
    /// device info told the real version (protocol/TUYA.md §1.3: HTB's default).
    private mutating func send(
        _ command: BLECommand, ackSN: UInt32 = 0, data: [UInt8], flag: BLESecurityFlag, awaiting: Bool, now: Duration
    ) -> [Action] {
        guard let keys else { return [] }
        let sn = lastSN &+ 1
        let sealFlag = flag == .login ? keys.loginFlag : keys.sessionFlag
        guard let frame = try? BLECommandFrame(sn: sn, ackSN: ackSN, command: command, data: data),
            let encrypted = try? BLEFrameCodec.encrypt(frame, flag: sealFlag, keys: keys, ivSource: &ivSource),
            let packets = try? BLEFragmenter(protocolVersion: protocolVersion, mtu: packetLength).packets(
                for: encrypted)
        else { return [.problem(.garbledFrame(reason: "cannot build \(command.name)"))] }
        lastSN = sn
        if awaiting { pending[sn] = Pending(command: command, deadline: now + configuration.responseTimeout) }
        return packets.map { .write($0) }
    }
}
