import TuyaCore
import TuyaWire

/// One simulated Tuya BLE device, the device's side of protocol/TUYA.md §1, as a pure
/// state machine: GATT writes from the gateway go in, notifications and link drops
/// come out. A GATT server (or an in-memory transport in tests) performs the actions.
///
/// It behaves like the SDK's `tuya_ble_commonData_rx_proc` and its handlers:
///
/// * packets are reassembled (§1.3); a frame is decrypted with the login key (flag 4,
///   device info only) or, once device info handed out a srand, the session key (flag
///   5); a frame that does not decrypt, has a bad CRC or bad padding is dropped without
///   an answer, exactly as the SDK returns early on those errors;
/// * a frame whose `sn` is not above the last one received drops the link (§1.5);
/// * device info answers with a fresh srand (§1.7); pair answers 0, 2 when already
///   bound, or 1 and a disconnect when the uuid does not match (§1.6);
/// * after pairing it asks the gateway for the time (0x8011), as the SDK does;
/// * DP writes (0x0002, and 0x0027 on a protocol-4 device) and queries (0x0003) are
///   answered, then the DPs are reported (0x8001/0x8003 or 0x8006/0x8007); every
///   report is expected to be acknowledged (`Statistics.reportsUnacknowledged`).
///
/// The DP values and a diffuser's behaviour (timer, tank, faults) are those of the
/// Wi-Fi simulator's `SimulatedDevice`, which this device runs as its application:
/// the same product answers the same way over either radio.
///
/// Randomness (IVs, srand, auth material, garbage) comes from a seeded generator and
/// time from `advance(to:)`, so a run repeats byte for byte.
public struct SimulatedBLEDevice: Sendable {
    /// What the caller must do on the device's behalf.
    public enum Action: Hashable, Sendable {
        /// Send this packet as a notification on the notify characteristic.
        case notify([UInt8])
        /// The device drops the BLE link.
        case disconnect
    }

    /// Who the device is: what the gateway must know to talk to it.
    public struct Identity: Hashable, Sendable {
        /// The 16-character device uuid the pair request must carry.
        public var uuid: String
        /// The 16-character local key; its first six characters make the login key.
        public var localKey: String
        public var devId: String
        /// The BLE protocol major version it reports in device info: 3 or 4.
        public var protocolVersion: UInt8
        /// Already bound to this local key: pairing answers 2 instead of 0.
        public var isBound: Bool

        public init(uuid: String, localKey: String, devId: String, protocolVersion: UInt8, isBound: Bool = false) {
            self.uuid = uuid
            self.localKey = localKey
            self.devId = devId
            self.protocolVersion = protocolVersion
            self.isBound = isBound
        }
    }

    /// Firmware choices that real devices make differently.
    public struct Options: Hashable, Sendable {
        /// Reports carry a timestamp (0x8003 / 0x8007) instead of none (0x8001 / 0x8006).
        public var reportsWithTime: Bool
        /// What the device asks for after pairing: 0x8011 (string), 0x8012 (date), or nil.
        public var timeRequest: BLECommand?
        /// Unix time (seconds) at simulation time zero, for report timestamps.
        public var unixEpoch: Int64
        /// Fixes the srand of every device-info reply (test vectors); random when nil.
        public var fixedSrand: [UInt8]?
        /// The ATT MTU its GATT server offers in an MTU exchange (247, as many Tuya modules);
        /// nil: it refuses the exchange (Request Not Supported) and stays at 23.
        public var serverMTU: UInt16?
        /// The SDK build's `TUYA_BLE_DATA_MTU_MAX`: the longest packet its Tuya layer takes
        /// (longer ones are dropped) and may send (20 to 244).
        public var maximumPacketLength: Int

        public init(
            reportsWithTime: Bool = false, timeRequest: BLECommand? = .timeRequestString,
            unixEpoch: Int64 = 1_700_000_000, fixedSrand: [UInt8]? = nil, serverMTU: UInt16? = 247,
            maximumPacketLength: Int = 244
        ) {
            self.reportsWithTime = reportsWithTime
            self.timeRequest = timeRequest
            self.unixEpoch = unixEpoch
            self.fixedSrand = fixedSrand
            self.serverMTU = serverMTU
            self.maximumPacketLength = max(BLEFragmenter.defaultMTU, maximumPacketLength)
        }
    }

    /// Counters a test reads to see what the device did with its input.
    public struct Statistics: Hashable, Sendable {
        /// Packets (GATT writes) the gateway wrote to the Tuya characteristic, and packets
        /// (notifications) the device sent.
        public var packetsReceived = 0
        public var packetsSent = 0
        /// Whole frames reassembled from the gateway's writes.
        public var framesReceived = 0
        /// Packets or frames dropped without an answer: broken fragmentation, a frame
        /// that does not decrypt, a bad CRC or padding, a command not allowed yet.
        public var framesRejected = 0
        /// Links the device dropped itself (repeated sn, refused pairing, on request).
        public var linkDrops = 0
        public var pairings = 0
        public var writesApplied = 0
        public var queriesAnswered = 0
        public var reportsSent = 0
        public var reportsAcknowledged = 0
        public var timeRepliesReceived = 0
        /// The unix time in milliseconds of the gateway's last time reply.
        public var lastTimeReply: Int64?
    }

    public let identity: Identity
    public var options: Options
    /// Faults to show on the next notifications (`SimulatedBLEDevice+Misbehaviour`).
    public var misbehaviour: Misbehaviour
    public internal(set) var statistics = Statistics()
    public private(set) var isConnected = false
    /// Paired during the current connection: DP traffic is allowed.
    public private(set) var isPaired = false
    public private(set) var isBound: Bool
    /// Every `sn` the gateway used on the current connection, in order.
    public private(set) var receivedSNs: [UInt32] = []

    var application: SimulatedDevice
    private let seed: UInt64
    var random: SeededGenerator
    private var ivSource: RandomIVSource<SeededGenerator>
    var keys: BLEKeys
    private var reassembler = BLEReassembler()
    private var lastReceivedSN: UInt32 = 0
    private var nextSendSN: UInt32 = 1
    private var pendingTimeRequest: UInt32?
    /// Reports sent and not yet acknowledged, by their sn.
    private var unacknowledged: Set<UInt32> = []
    /// The length of the packets it sends: 20, or on protocol 4 what the gateway's device-info
    /// request announced when its build takes that much (the SDK's `send_packet_data_len`).
    public private(set) var sendPacketLength = BLEFragmenter.defaultMTU

    /// Throws when the local key is not 16 characters or the protocol version is not 3 or 4.
    public init(
        identity: Identity, profile: DeviceProfile, options: Options = Options(),
        misbehaviour: Misbehaviour = Misbehaviour(), behaviour: DeviceBehaviour = DeviceBehaviour(),
        seed: UInt64 = 0
    ) throws(WireError) {
        guard identity.protocolVersion == 3 || identity.protocolVersion == 4 else {
            throw .unsupportedVersion("simulated BLE protocol \(identity.protocolVersion) (use 3 or 4)")
        }
        self.identity = identity
        self.options = options
        self.misbehaviour = misbehaviour
        isBound = identity.isBound
        keys = try BLEKeys(localKey: identity.localKey)
        var appBehaviour = behaviour
        // BLE answers within the same connection event; the radio adds the latency.
        appBehaviour.reportDelay = .zero
        application = try SimulatedDevice(
            devId: identity.devId, localKey: identity.localKey, profile: profile, behaviour: appBehaviour,
            seed: seed, unixEpoch: options.unixEpoch, mqttFrames: false)
        self.seed = seed
        random = SeededGenerator(seed: seed ^ 0x5EED_B1E0)
        ivSource = RandomIVSource(generator: SeededGenerator(seed: seed ^ 0x1F50_17CE))
    }

    /// The device's DP values.
    public var state: DataPoints { application.state }
    public var profile: DeviceProfile { application.profile }
    /// Reports sent on this connection that the gateway has not acknowledged.
    public var reportsUnacknowledged: Int { unacknowledged.count }

    // MARK: - Link

    /// A central connected and enabled notifications: a fresh session (sn counters,
    /// no session key, not paired).
    public mutating func connect() {
        isConnected = true
        isPaired = false
        keys.endSession()
        reassembler.reset()
        lastReceivedSN = 0
        nextSendSN = 1
        pendingTimeRequest = nil
        unacknowledged = []
        receivedSNs = []
        sendPacketLength = BLEFragmenter.defaultMTU
    }

    /// The central went away.
    public mutating func linkLost() {
        isConnected = false
        isPaired = false
        keys.endSession()
        reassembler.reset()
    }

    /// The device drops the link itself (walked out of range, power blip).
    public mutating func dropLink() -> [Action] {
        guard isConnected else { return [] }
        linkLost()
        statistics.linkDrops += 1
        return [.disconnect]
    }

    /// Loses power: drops the link and boots with the profile's initial values, as a
    /// device that keeps no DP state across power cycles does. Stays bound.
    public mutating func powerCycle() -> [Action] {
        let actions = dropLink()
        if let fresh = try? SimulatedDevice(
            devId: identity.devId, localKey: identity.localKey, profile: profile, behaviour: application.behaviour,
            seed: seed, unixEpoch: options.unixEpoch, mqttFrames: false)
        {
            application = fresh
        }
        return actions
    }

    // MARK: - Input

    /// One packet the gateway wrote to the write characteristic.
    public mutating func receive(packet: [UInt8]) -> [Action] {
        guard isConnected else { return [] }
        statistics.packetsReceived += 1
        // The SDK's `trsmitr_recv_pkg_decode` refuses a packet above its build's limit.
        guard packet.count <= options.maximumPacketLength else {
            statistics.framesRejected += 1
            reassembler.reset()
            return []
        }
        let whole: [UInt8]?
        do throws(WireError) {
            whole = try reassembler.receive(packet)
        } catch {
            statistics.framesRejected += 1
            return []
        }
        guard let whole else { return [] }
        statistics.framesReceived += 1
        // The SDK refuses a version nibble below 2 ("version not compatibility").
        guard let version = reassembler.protocolVersion, version >= 2 else {
            statistics.framesRejected += 1
            return []
        }
        let flag: BLESecurityFlag
        let frame: BLECommandFrame
        do throws(WireError) {
            (flag, frame) = try BLEFrameCodec.decrypt(whole, keys: keys)
        } catch {
            statistics.framesRejected += 1
            return []
        }
        guard frame.sn > lastReceivedSN else { return dropLink() }
        lastReceivedSN = frame.sn
        receivedSNs.append(frame.sn)
        return handle(frame, flag: flag)
    }

    /// Moves the device's clock forward: timer ticks, the tank running dry and the
    /// reports they cause (sent only while paired).
    public mutating func advance(to time: Duration) -> [Action] {
        reports(from: application.advance(to: time))
    }

    /// Fills the tank, clearing the water-shortage fault, and reports it.
    public mutating func refill(at time: Duration) -> [Action] {
        reports(from: application.refill(at: time))
    }

    private mutating func handle(_ frame: BLECommandFrame, flag: BLESecurityFlag) -> [Action] {
        switch frame.command {
        case .deviceInfo where flag == keys.loginFlag:
            return deviceInfo(frame, flag: flag)
        case .deviceInfo:
            break
        case _ where flag != keys.sessionFlag:
            // Only device info may use the login key.
            break
        case .pair:
            return pair(frame, flag: flag)
        case .dpWriteV3 where isPaired:
            return writeV3(frame, flag: flag)
        case .dpWriteV4 where isPaired && identity.protocolVersion >= 4:
            return writeV4(frame, flag: flag)
        case .query where isPaired:
            statistics.queriesAnswered += 1
            let reply = send(.query, ackSN: frame.sn, data: [0], flag: flag)
            return reply + reports(of: application.state.keys.sorted())
        case .dpReportV3, .dpReportV3WithTime, .dpReportV4, .dpReportV4WithTime:
            if unacknowledged.remove(frame.ackSN) != nil {
                statistics.reportsAcknowledged += 1
                return []
            }
        case .timeRequestString, .timeRequestDate:
            if receivedTimeReply(frame) { return [] }
        default:
            break
        }
        statistics.framesRejected += 1
        return []
    }

    private mutating func deviceInfo(_ frame: BLECommandFrame, flag: BLESecurityFlag) -> [Action] {
        guard let request = try? BLEDeviceInfoRequest(bytes: frame.data) else {
            statistics.framesRejected += 1
            return []
        }
        // The SDK's v4 handler: the announced length when it is 1...TUYA_BLE_DATA_MTU_MAX, else
        // 20; v2 and v3 always send 20. (An empty body, as HTB sends, is taken here as 20.)
        sendPacketLength = BLEFragmenter.defaultMTU
        if identity.protocolVersion >= 4, let announced = request.mtu.map(Int.init),
            (1...options.maximumPacketLength).contains(announced)
        {
            sendPacketLength = announced
        }
        let srand = options.fixedSrand ?? randomBytes(6)
        do throws(WireError) {
            try keys.establishSession(srand: srand)
        } catch {
            statistics.framesRejected += 1
            return []
        }
        let info = BLEDeviceInfo(
            firmwareVersion: .init(major: 1, minor: 2),
            protocolVersion: .init(major: identity.protocolVersion, minor: 1),
            flags: 0, isBound: isBound, srand: srand, hardwareVersion: .init(major: 1, minor: 0),
            authMaterial: randomBytes(32),
            extended: .init(
                firmwareVersion: [1, 2, 0], hardwareVersion: [1, 0, 0], communicationCapability: 0,
                virtualID: Array(identity.devId.utf8.prefix(22))
                    + Array(repeating: 0, count: max(0, 22 - identity.devId.utf8.count)),
                mcuFirmwareVersion: [1, 0, 0], mcuHardwareVersion: [1, 0, 0], wifiRegisterMode: 0))
        guard let body = try? info.encoded() else { return [] }
        return send(.deviceInfo, ackSN: frame.sn, data: body, flag: flag)
    }

    private mutating func pair(_ frame: BLECommandFrame, flag: BLESecurityFlag) -> [Action] {
        guard let request = try? BLEPairRequest(bytes: frame.data) else {
            statistics.framesRejected += 1
            return []
        }
        guard request.uuid == identity.uuid else {
            // The SDK answers "failed" and disconnects.
            let reply = send(.pair, ackSN: frame.sn, data: BLEPairResult.failed.encoded, flag: flag)
            return reply + dropLink()
        }
        let result: BLEPairResult = isBound ? .alreadyBound : .paired
        isBound = true
        isPaired = true
        statistics.pairings += 1
        var actions = send(.pair, ackSN: frame.sn, data: result.encoded, flag: flag)
        if let timeRequest = options.timeRequest {
            pendingTimeRequest = nextSendSN
            actions += send(timeRequest, data: [], flag: flag)
        }
        return actions
    }

    private mutating func receivedTimeReply(_ frame: BLECommandFrame) -> Bool {
        guard let pending = pendingTimeRequest, frame.ackSN == pending else { return false }
        if frame.command == .timeRequestString {
            guard let reply = try? BLETimeStringReply(bytes: frame.data) else { return false }
            statistics.lastTimeReply = reply.unixMilliseconds
        } else {
            guard (try? BLETimeDateReply(bytes: frame.data)) != nil else { return false }
        }
        pendingTimeRequest = nil
        statistics.timeRepliesReceived += 1
        return true
    }

    // MARK: - Output

    /// Encrypts, fragments and shapes (misbehaviour) one frame; sn grows per frame sent.
    mutating func send(
        _ command: BLECommand, ackSN: UInt32 = 0, data: [UInt8], flag: BLESecurityFlag
    ) -> [Action] {
        let sn = nextSendSN
        nextSendSN &+= 1
        guard let frame = try? BLECommandFrame(sn: sn, ackSN: ackSN, command: command, data: data),
            let encrypted = try? BLEFrameCodec.encrypt(frame, flag: flag, keys: keys, ivSource: &ivSource),
            let packets = try? BLEFragmenter(protocolVersion: identity.protocolVersion, mtu: sendPacketLength)
                .packets(for: encrypted)
        else { return [] }
        if command.isReport { unacknowledged.insert(sn) }
        let shaped = shape(packets)
        statistics.packetsSent += shaped.count
        return shaped.map { .notify($0) }
    }

    mutating func randomBytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &random) }
    }
}

extension BLECommand {
    /// The device → gateway DP reports that must be acknowledged (protocol/TUYA.md §1.9).
    var isReport: Bool {
        [.dpReportV3, .dpReportV3WithTime, .dpReportV4, .dpReportV4WithTime].contains(self)
    }
}
