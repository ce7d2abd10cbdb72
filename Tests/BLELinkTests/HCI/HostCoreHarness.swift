import BLELink
import YoullTestSupport

/// Drives `HCIHostCore` as a controller would: events in as H4 bytes, and what the host sent
/// collected apart from its other actions. Pure; no sockets, no clock.
struct HostCoreHarness {
    var core: HCIHostCore
    /// Packets the host wrote, oldest first (tests remove them as they check them).
    var sent: [H4Packet] = []
    /// Command timers armed and not yet cancelled, by sequence.
    var commandTimers: Set<Int> = []

    init(configuration: HCIHostCore.Configuration = .init()) {
        core = HCIHostCore(configuration: configuration)
    }

    /// Bytes from the controller; returns the actions other than `.send` and command timers.
    @discardableResult
    mutating func feed(_ bytes: [UInt8]) -> [HCIHostCore.Action] {
        keep(core.receive(bytes: bytes))
    }

    mutating func keep(_ actions: [HCIHostCore.Action]) -> [HCIHostCore.Action] {
        var others: [HCIHostCore.Action] = []
        for action in actions {
            switch action {
            case .send(let packet): sent.append(packet)
            case .startTimer(.command(let sequence), _): commandTimers.insert(sequence)
            case .cancelTimer(.command(let sequence)): commandTimers.remove(sequence)
            default: others.append(action)
            }
        }
        return others
    }

    /// The opcode of each command sent since the last call, and forgets them.
    mutating func takeCommands() -> [HCIOpcode] {
        defer { sent.removeAll { $0.type == .command } }
        return sent.filter { $0.type == .command }.map {
            HCIOpcode(rawValue: UInt16($0.body[0]) | UInt16($0.body[1]) << 8)
        }
    }

    /// The ACL packets sent since the last call, and forgets them.
    mutating func takeACL() throws -> [HCIACLPacket] {
        defer { sent.removeAll { $0.type == .acl } }
        return try sent.filter { $0.type == .acl }.map { try HCIACLPacket(body: $0.body) }
    }

    /// Runs the start-up sequence with the given controller answers; returns the actions of the last.
    @discardableResult
    mutating func initialize(
        features: HCILEFeatures = [], leBuffers: (length: UInt16, count: UInt8) = (27, 4), bufferV2: Bool = false
    ) -> [HCIHostCore.Action] {
        _ = keep(core.start())
        feed(Self.complete(.reset))
        feed(Self.complete(.setEventMask))
        feed(Self.complete(.leSetEventMask))
        feed(Self.complete(.readBDAddr, hexBytes("010000DC1B00")))
        var mask = [UInt8](repeating: 0, count: 64)
        if bufferV2 { mask[41] = 0x20 }
        feed(Self.complete(.readLocalSupportedCommands, mask))
        var featureBytes: [UInt8] = []
        for index in 0..<8 { featureBytes.append(UInt8(truncatingIfNeeded: features.rawValue >> (8 * UInt64(index)))) }
        feed(Self.complete(.leReadLocalSupportedFeatures, featureBytes))
        var buffer: [UInt8] = []
        buffer.append(UInt8(leBuffers.length & 0xFF))
        buffer.append(UInt8(leBuffers.length >> 8))
        buffer.append(leBuffers.count)
        if bufferV2 { buffer += [0, 0, 0] }
        let actions = feed(Self.complete(bufferV2 ? .leReadBufferSizeV2 : .leReadBufferSize, buffer))
        _ = takeCommands()
        return actions
    }

    // MARK: controller events

    static func complete(
        _ opcode: HCIOpcode, _ parameters: [UInt8] = [], status: HCIErrorCode = .success, credits: UInt8 = 1
    )
        -> [UInt8]
    {
        HCIEventPacket(
            code: HCIEventPacket.commandComplete,
            parameters: HCICommandComplete(
                numberOfCommandPackets: credits, opcode: opcode, status: status, returnParameters: parameters
            ).parameters
        ).h4Packet.encoded
    }

    static func status(_ opcode: HCIOpcode, _ status: HCIErrorCode = .success) -> [UInt8] {
        HCIEventPacket(
            code: HCIEventPacket.commandStatus,
            parameters: HCICommandStatus(status: status, numberOfCommandPackets: 1, opcode: opcode).parameters
        ).h4Packet.encoded
    }

    static func connectionComplete(
        handle: UInt16, address: String = "C4:00:00:00:00:01", status: HCIErrorCode = .success
    ) -> [UInt8] {
        let event = HCILEConnectionComplete(
            status: status, handle: handle, isCentral: true, peerAddressType: .randomDevice, peerAddress: address,
            interval: 24, latency: 0, supervisionTimeout: 400)
        return HCIEventPacket(code: HCIEventPacket.leMeta, parameters: [0x01] + event.legacyParameters).h4Packet.encoded
    }

    static func disconnected(handle: UInt16, reason: HCIErrorCode) -> [UInt8] {
        HCIEventPacket(
            code: HCIEventPacket.disconnectionComplete,
            parameters: HCIDisconnectionComplete(handle: handle, reason: reason).parameters
        ).h4Packet.encoded
    }

    static func completedPackets(_ entries: [(UInt16, UInt16)]) -> [UInt8] {
        HCIEventPacket(
            code: HCIEventPacket.numberOfCompletedPackets,
            parameters: HCINumberOfCompletedPackets(entries: entries.map { .init(handle: $0.0, count: $0.1) })
                .parameters
        ).h4Packet.encoded
    }

    static func acl(_ handle: UInt16, _ boundary: HCIACLPacket.Boundary, _ data: [UInt8]) -> [UInt8] {
        HCIACLPacket(handle: handle, boundary: boundary, data: data).h4Packet.encoded
    }
}
