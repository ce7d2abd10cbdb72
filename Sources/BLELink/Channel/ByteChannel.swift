/// A message-oriented, bidirectional link: one PDU per datagram, boundaries kept
/// (`SOCK_SEQPACKET` semantics). The ATT bearer runs over it, so the same code talks to a real
/// device through an L2CAP socket and to the simulator through a socketpair.
public protocol ByteChannel: Sendable {
    /// Sends one PDU. Throws when the channel is closed or the system refuses the write.
    func send(_ pdu: [UInt8]) async throws
    /// The next PDU, waiting for it; nil once the peer has closed the link or `close()` was
    /// called. PDUs that arrived before the peer closed are delivered first.
    func receive() async throws -> [UInt8]?
    /// Closes the link. A pending `receive()` returns nil, a pending `send` throws. Idempotent.
    func close() async
    /// Where a task waiting on this channel best runs (the thread that reads it), for
    /// `withTaskExecutorPreference`; nil when no executor is better than another.
    var taskExecutor: (any TaskExecutor)? { get }
}

extension ByteChannel {
    public var taskExecutor: (any TaskExecutor)? { nil }
}

/// What an `ImmediateByteChannel` hands its handler: each PDU, then the end once.
public enum ByteChannelEvent: Sendable {
    case pdu([UInt8])
    /// The channel ended: nil after end-of-file or `close()`, else why it failed.
    case end(ByteChannelError?)
}

/// A `ByteChannel` that can also work without a task switch per PDU: it hands each PDU it reads
/// to a handler on its own reader thread, and queues a PDU to send without waiting. The ATT bearer
/// uses these when its channel offers them (`SocketChannel`), so a notification reaches the Tuya
/// session with one thread hand-off and a packet leaves without any; other channels are read
/// with `receive()`.
public protocol ImmediateByteChannel: ByteChannel {
    /// From now on every PDU goes to `handler` instead of `receive()`: in order, one call at a time,
    /// on the channel's reader thread, then `.end` exactly once. PDUs read before are handed over
    /// first. The handler must not block: it delays every later PDU.
    func deliver(to handler: @escaping @Sendable (ByteChannelEvent) -> Void)
    /// Queues `pdu` behind every earlier send and returns without waiting for it to leave. Throws
    /// when the channel has ended or the system refuses the PDU at once; a PDU that cannot leave
    /// later ends the channel with that error.
    func enqueue(_ pdu: [UInt8]) throws(ByteChannelError)
}

/// Why a `ByteChannel` operation failed.
public enum ByteChannelError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `close()` was called, or the peer closed the link before a send.
    case closed
    /// ATT PDUs are never empty, and an empty datagram reads like end-of-file on a seqpacket socket.
    case emptyPDU
    /// The peer sent a datagram longer than this channel accepts.
    case oversizedPDU(size: Int, maximum: Int)
    /// A system call failed.
    case system(call: String, errno: Int32, text: String)

    public var description: String {
        switch self {
        case .closed: "the link is closed"
        case .emptyPDU: "refusing to send an empty PDU"
        case .oversizedPDU(let size, let maximum): "the peer sent a \(size)-byte PDU; at most \(maximum) are accepted"
        case .system(let call, let errno, let text): "\(call) failed: \(text) (errno \(errno))"
        }
    }
}
