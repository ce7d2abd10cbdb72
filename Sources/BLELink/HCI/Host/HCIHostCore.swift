import Foundation

/// The userspace HCI host for the LE subset the gateway needs, as a pure state machine: bytes
/// from the controller, requests from the gateway and timer expiries go in; packets to write,
/// timers to arm and results come out as `Action`s, which `HCIHost` performs. No I/O, no clock:
/// every behaviour is tested by feeding it bytes.
///
/// What it does: resets and reads the controller (`+Initialization`), scans with the legacy or
/// extended commands as the controller allows (`+Scanning`), makes one connection at a time with
/// a timeout and cancel and ends them with a reason (`+Connections`), and carries ATT over
/// L2CAP fixed channel 4 with fragmentation, reassembly and the controller's buffer credits
/// (`+Data`). Anything that makes the controller untrustworthy (malformed events, a hardware
/// error, a command left unanswered, the stream ending) fails the host once, failing every
/// operation under way with that reason.
public struct HCIHostCore: Sendable {
    public struct Configuration: Hashable, Sendable {
        /// How long a command may go unanswered. Reset can take a while on UART controllers.
        public var commandTimeout: Duration = .seconds(10)
        /// After LE Create Connection Cancel, how long to wait for the controller's LE Connection
        /// Complete before giving the attempt up.
        public var cancelGrace: Duration = .seconds(2)
        /// How long a Disconnect may wait for the controller's Disconnection Complete before the
        /// host forgets the link anyway (a controller waits at most a supervision timeout).
        public var disconnectTimeout: Duration = .seconds(10)
        public var connection = HCIConnectionParameters.tuya
        /// Scan interval and window, units of 0.625 ms (10 ms every 10 ms: listening all the time).
        public var scanInterval: UInt16 = 0x0010
        public var scanWindow: UInt16 = 0x0010
        public var maximumL2CAPPayload = 1024
        public var streamLimits = H4StreamDecoder.Limits()

        public init() {}
    }

    /// A timer the host asks for; `timerFired` is called with it when it expires.
    public enum Timer: Hashable, Sendable {
        case command(sequence: Int)
        case connect(operation: Int)
        case cancelGrace(operation: Int)
        case disconnect(handle: UInt16)
    }

    /// A connection made: what the gateway's channel for it needs.
    public struct Link: Hashable, Sendable {
        public var handle: UInt16
        public var address: String
        public var addressType: BluetoothAddressType
        /// Which of the links this host has made: controllers reuse a handle once its link is
        /// gone, so a late close of an old link must not end the new one.
        public var serial: UInt64

        public init(handle: UInt16, address: String, addressType: BluetoothAddressType, serial: UInt64 = 0) {
            self.handle = handle
            self.address = address
            self.addressType = addressType
            self.serial = serial
        }
    }

    public enum Action: Hashable, Sendable {
        /// Write this packet to the controller, in order.
        case send(H4Packet)
        case startTimer(Timer, after: Duration)
        case cancelTimer(Timer)
        /// Initialization finished; the host accepts requests.
        case ready(HCIControllerInfo)
        /// A scan change or a disconnect finished (nil: success).
        case completed(operation: Int, HCIHostError?)
        case connected(operation: Int, Link)
        case connectFailed(operation: Int, HCIHostError)
        /// An ATT PDU's last fragment went to the controller.
        case sent(operation: Int)
        case sendFailed(operation: Int, HCIHostError)
        case advertisingReports([AdvertisingReport])
        /// An ATT PDU from the device on `handle`.
        case attPDU(handle: UInt16, [UInt8])
        /// The link on `handle` is gone (its channel ends).
        case disconnected(handle: UInt16, HCIHostError)
        /// Something was dropped and the host carried on (a malformed advert, a stray fragment).
        case problem(String)
        /// The host can no longer be used.
        case failed(HCIHostError)
    }

    enum Phase: Hashable, Sendable {
        case idle, initializing, ready, failed(HCIHostError)
    }

    public let configuration: Configuration
    var phase = Phase.idle
    var decoder: H4StreamDecoder
    var commands = HCICommandFlow()
    var discovered = DiscoveredController()
    public internal(set) var controller: HCIControllerInfo?
    var acl = ACLFlowControl(capacity: 1)
    var links: [UInt16: LinkState] = [:]
    var linksMade: UInt64 = 0
    var scan = ScanState()
    var initiations: [Initiation] = []

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        decoder = H4StreamDecoder(limits: configuration.streamLimits)
    }

    /// Why the host stopped, once it has.
    public var failure: HCIHostError? {
        if case .failed(let error) = phase { error } else { nil }
    }

    public var isReady: Bool { phase == .ready }

    /// Handles of the connections up now.
    public var connectedHandles: [UInt16] { links.keys.sorted() }

    // MARK: input

    /// Bytes read from the controller, in whatever chunks they came.
    public mutating func receive(bytes: some Collection<UInt8>) -> [Action] {
        guard failure == nil else { return [] }
        let packets: [H4Packet]
        do {
            packets = try decoder.append(bytes)
        } catch {
            return fail(.malformed(error))
        }
        var actions: [Action] = []
        for packet in packets {
            actions += receive(packet)
            if failure != nil { break }
        }
        return actions
    }

    /// The byte stream ended or failed.
    public mutating func transportClosed(_ reason: String) -> [Action] {
        fail(.controllerGone(reason))
    }

    /// The gateway closes the host.
    public mutating func close() -> [Action] {
        fail(.closed)
    }

    public mutating func timerFired(_ timer: Timer) -> [Action] {
        guard failure == nil else { return [] }
        switch timer {
        case .command(let sequence):
            guard let outstanding = commands.outstanding, sequence == commands.sequence else { return [] }
            return fail(.commandTimeout(outstanding.opcode, after: configuration.commandTimeout))
        case .connect(let operation):
            return connectTimedOut(operation)
        case .cancelGrace(let operation):
            return cancelGraceEnded(operation)
        case .disconnect(let handle):
            return disconnectUnanswered(handle)
        }
    }

    private mutating func receive(_ packet: H4Packet) -> [Action] {
        switch packet.type {
        case .event:
            do {
                return handle(try HCIControllerEvent(body: packet.body))
            } catch .advertisingReport(let error) {
                return [.problem("advertising report dropped: \(error)")]
            } catch {
                return fail(.malformed(error))
            }
        case .acl:
            do {
                return receiveACL(try HCIACLPacket(body: packet.body))
            } catch {
                return fail(.malformed(error))
            }
        case .command, .sco, .iso:
            return [.problem("ignored an \(packet.type) packet from the controller")]
        }
    }

    private mutating func handle(_ event: HCIControllerEvent) -> [Action] {
        switch event {
        case .commandComplete(let complete):
            return answer(complete.opcode, credits: complete.numberOfCommandPackets) { core, purpose in
                core.commandCompleted(purpose, status: complete.status ?? .success, complete.returnParameters[...])
            }
        case .commandStatus(let status):
            return answer(status.opcode, credits: status.numberOfCommandPackets) { core, purpose in
                core.commandStatus(purpose, status: status.status)
            }
        case .disconnectionComplete(let event):
            return disconnectionComplete(event)
        case .numberOfCompletedPackets(let event):
            for entry in event.entries { acl.completed(Int(entry.count), on: entry.handle) }
            return pumpACL()
        case .hardwareError(let code):
            return fail(.hardwareError(code: code))
        case .dataBufferOverflow(let linkType):
            return [.problem("the controller's data buffers overflowed (link type \(linkType))")]
        case .leConnectionComplete(let event):
            return connectionComplete(event)
        case .advertisingReports(let reports):
            return scan.isReporting ? [.advertisingReports(reports)] : []
        case .leDataLengthChange, .other:
            return []
        }
    }

    /// Routes a Command Complete/Status to the command it answers and sends the next one.
    private mutating func answer(
        _ opcode: HCIOpcode, credits: UInt8, _ body: (inout HCIHostCore, HCICommandPurpose) -> [Action]
    ) -> [Action] {
        let sequence = commands.sequence
        let (purpose, next) = commands.answer(opcode: opcode, credits: credits)
        var actions: [Action] = []
        if purpose != nil { actions.append(.cancelTimer(.command(sequence: sequence))) }
        if let next { actions += transmit(next) }
        if let purpose { actions += body(&self, purpose) }
        return actions
    }

    // MARK: commands

    /// Queues a command and sends it when the flow allows.
    mutating func issue(_ command: some HCICommand, for purpose: HCICommandPurpose) -> [Action] {
        guard let entry = commands.enqueue(command, for: purpose) else { return [] }
        return transmit(entry)
    }

    private func transmit(_ entry: HCICommandFlow.Entry) -> [Action] {
        [
            .send(entry.packet),
            .startTimer(.command(sequence: commands.sequence), after: configuration.commandTimeout),
        ]
    }

    private mutating func commandCompleted(
        _ purpose: HCICommandPurpose, status: HCIErrorCode, _ parameters: ArraySlice<UInt8>
    ) -> [Action] {
        switch purpose {
        case .initialization(let step): initializationStep(step, status: status, parameters)
        case .scanParameters(let operation): scanParametersSet(operation, status: status)
        case .scanEnable(let operation, let enable): scanEnableSet(operation, enable: enable, status: status)
        case .cancelConnection(let operation): cancelAnswered(operation, status: status)
        case .createConnection(let operation): createConnectionAnswered(operation, status: status)
        case .disconnect(let handle): disconnectAnswered(handle, status: status)
        }
    }

    private mutating func commandStatus(_ purpose: HCICommandPurpose, status: HCIErrorCode) -> [Action] {
        switch purpose {
        case .createConnection(let operation): createConnectionAnswered(operation, status: status)
        case .disconnect(let handle): disconnectAnswered(handle, status: status)
        case .initialization, .scanParameters, .scanEnable, .cancelConnection:
            // These end with Command Complete; a Command Status can only carry an error.
            commandCompleted(purpose, status: status == .success ? .unknownCommand : status, [])
        }
    }

    // MARK: failing

    /// Fails the host once: every operation under way fails with `error`, every link ends.
    mutating func fail(_ error: HCIHostError) -> [Action] {
        guard failure == nil else { return [] }
        phase = .failed(error)
        var actions: [Action] = []
        if commands.outstanding != nil { actions.append(.cancelTimer(.command(sequence: commands.sequence))) }
        for entry in commands.removeAll() {
            switch entry.purpose {
            case .scanParameters(let operation), .scanEnable(let operation, _):
                actions.append(.completed(operation: operation, error))
            case .initialization, .createConnection, .cancelConnection, .disconnect:
                break
            }
        }
        actions += failInitiations(error)
        for handle in links.keys.sorted() {
            actions += endLink(handle, error)
        }
        scan = ScanState()
        actions.append(.failed(error))
        return actions
    }
}

/// What the controller told the host during initialization, before it is ready.
struct DiscoveredController: Hashable, Sendable {
    var address: String?
    var supportsLEReadBufferSizeV2 = false
    var features = HCILEFeatures()
    var leBuffers: HCIBufferSize?
}
