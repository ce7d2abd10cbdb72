/// Why ACL fragments from the controller could not be joined into an L2CAP frame. The frame
/// concerned is dropped; the link goes on.
public enum L2CAPReassemblyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A continuing fragment arrived with no frame under way.
    case continuationWithoutStart(handle: UInt16, length: Int)
    /// A new frame started before the previous one was complete; the previous one is lost, the
    /// new one is kept.
    case previousFrameIncomplete(handle: UInt16, received: Int, expected: Int)
    /// The frame declares more payload than this host accepts.
    case frameTooLong(handle: UInt16, length: Int, maximum: Int)
    /// The fragments hold more bytes than the frame declared.
    case overrun(handle: UInt16, received: Int, expected: Int)

    public var description: String {
        switch self {
        case .continuationWithoutStart(let handle, let length):
            "connection 0x\(hex16(handle)): a \(length)-byte continuing ACL fragment without a frame under way"
        case .previousFrameIncomplete(let handle, let received, let expected):
            "connection 0x\(hex16(handle)): a new L2CAP frame started after \(received) of \(expected) bytes of "
                + "the previous one; that one is lost"
        case .frameTooLong(let handle, let length, let maximum):
            "connection 0x\(hex16(handle)): an L2CAP frame of \(length) bytes; at most \(maximum) are accepted"
        case .overrun(let handle, let received, let expected):
            "connection 0x\(hex16(handle)): ACL fragments carry \(received) bytes for an L2CAP frame of \(expected)"
        }
    }
}

/// Joins the ACL fragments of one connection into L2CAP basic frames (Core Specification Vol 3
/// Part A §7.2.2). Pure and bounded: at most one frame of at most `maximumPayloadLength` bytes
/// is held, so a hostile controller or peer cannot grow memory.
public struct L2CAPReassembler: Hashable, Sendable {
    public let handle: UInt16
    public let maximumPayloadLength: Int
    private var partial: [UInt8]?

    /// 1024 bytes of payload: an ATT PDU is at most 517 (ATT_MTU), and signaling and SMP PDUs
    /// are shorter.
    public init(handle: UInt16, maximumPayloadLength: Int = 1024) {
        self.handle = handle
        self.maximumPayloadLength = maximumPayloadLength
    }

    /// Whether a frame is under way.
    public var isIncomplete: Bool { partial != nil }

    /// What one fragment did.
    public struct Received: Hashable, Sendable {
        /// The frame it completed, if any.
        public var frame: L2CAPBasicFrame?
        /// Set when it started a new frame while the previous one was incomplete: that one is
        /// lost (`previousFrameIncomplete`), this one is kept.
        public var lost: L2CAPReassemblyError?
    }

    /// Takes one fragment. Throws when the fragment itself cannot be used (it is dropped, with
    /// any frame it belonged to).
    public mutating func receive(_ packet: HCIACLPacket) throws(L2CAPReassemblyError) -> Received {
        if packet.boundary.isFirst {
            let lost = partial.map { previous in
                L2CAPReassemblyError.previousFrameIncomplete(
                    handle: handle, received: previous.count, expected: expectedLength(previous) ?? 0)
            }
            partial = []
            return Received(frame: try append(packet.data), lost: lost)
        }
        guard partial != nil else { throw .continuationWithoutStart(handle: handle, length: packet.data.count) }
        return Received(frame: try append(packet.data), lost: nil)
    }

    private mutating func append(_ data: [UInt8]) throws(L2CAPReassemblyError) -> L2CAPBasicFrame? {
        var bytes = (partial ?? []) + data
        guard let payloadLength = expectedLength(bytes).map({ $0 - L2CAPBasicFrame.headerLength }) else {
            partial = bytes
            return nil
        }
        guard payloadLength <= maximumPayloadLength else {
            partial = nil
            throw .frameTooLong(handle: handle, length: payloadLength, maximum: maximumPayloadLength)
        }
        let total = payloadLength + L2CAPBasicFrame.headerLength
        guard bytes.count <= total else {
            partial = nil
            throw .overrun(handle: handle, received: bytes.count, expected: total)
        }
        guard bytes.count == total else {
            partial = bytes
            return nil
        }
        partial = nil
        let channel = UInt16(bytes[2]) | UInt16(bytes[3]) << 8
        bytes.removeFirst(L2CAPBasicFrame.headerLength)
        return L2CAPBasicFrame(channel: channel, payload: bytes)
    }

    /// Header plus payload length, once the 2-byte length field has arrived.
    private func expectedLength(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 2 else { return nil }
        return Int(UInt16(bytes[0]) | UInt16(bytes[1]) << 8) + L2CAPBasicFrame.headerLength
    }
}
