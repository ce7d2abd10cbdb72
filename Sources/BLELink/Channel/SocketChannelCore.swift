import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The state behind a `SocketChannel`, shared by its callers and its reader thread; separate so
/// the reader thread can hold it while the public object can still be released (its `deinit`
/// ends the channel). The reader thread's loop is in `SocketChannelCore+Reader.swift`.
final class SocketChannelCore: Sendable {
    /// Why the channel stopped.
    enum End {
        case endOfFile, closed, failed(ByteChannelError)

        var error: ByteChannelError? {
            if case .failed(let error) = self { error } else { nil }
        }
    }

    typealias Handler = @Sendable (ByteChannelEvent) -> Void
    /// A PDU to send and who waits for it: nil for `enqueue`.
    typealias Send = (pdu: [UInt8], continuation: CheckedContinuation<Void, any Error>?)

    struct State: ReadQueueState {
        /// The write end of the wake pipe (see `wake`).
        let wakeWrite: Int32
        var reads = ReadQueue<[UInt8]>()
        /// Sends waiting for room in the socket, in order.
        var sends: [Send] = []
        var end: End?
        var handler: Handler?
        /// PDUs read before `deliver(to:)`, for the reader thread to hand over first.
        var handover: [[UInt8]] = []
        var readPaused = false
        var readerRunning = true
        var wakePending = false
        /// A send is in its system call, outside the lock: later PDUs queue behind it, the reader
        /// thread does not flush until it returns, and the descriptor stays open.
        var transmitting = false
        /// The reader thread stopped during such a send: the send closes the descriptor.
        var closeAfterTransmit = false

        var readEnd: ReadEnd? { end.map { ReadEnd(error: $0.error) } }

        /// Resumes reading paused for a slow receiver once it has caught up.
        mutating func didTake(_ pdu: [UInt8]) {
            guard readPaused, end == nil, reads.unread.count < SocketChannelCore.resumeBelow else { return }
            readPaused = false
            wake()
        }

        /// Makes the reader thread's `poll` return (once per wake-up; it drains the pipe).
        mutating func wake() {
            guard readerRunning, !wakePending else { return }
            wakePending = true
            var byte: UInt8 = 1
            _ = Glibc.write(wakeWrite, &byte, 1)
        }
    }

    static let pauseAbove = 64
    static let resumeBelow = 16

    let descriptor: Int32
    let maximumPDUSize: Int
    /// A pipe that wakes the reader thread from `poll` (a send queued, reading resumed, the end).
    let wakeRead: Int32
    private let wakeWrite: Int32
    let state: Mutex<State>
    let jobs = Mutex(Jobs())

    init(descriptor: Int32, maximumPDUSize: Int) throws(ByteChannelError) {
        var pipe: [Int32] = [-1, -1]
        guard Glibc.pipe(&pipe) == 0 else { throw Self.systemError("pipe") }
        for end in pipe {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        self.descriptor = descriptor
        self.maximumPDUSize = maximumPDUSize
        wakeRead = pipe[0]
        wakeWrite = pipe[1]
        state = Mutex(State(wakeWrite: pipe[1]))
    }

    // MARK: jobs

    /// The jobs of tasks preferring the reader thread (`ReaderExecutor`), under a lock of their
    /// own: a continuation resumed while `state` is held (a PDU for a waiting `receive()`)
    /// queues its task here.
    struct Jobs {
        var queued: [UnownedJob] = []
        /// The reader thread is between two `poll`s: it takes what is queued before it sleeps,
        /// so queueing needs no wake-up.
        var readerBusy = false
        var readerRunning = true
        var wakePending = false
    }

    /// Queues a job for the reader thread; false once that thread has stopped.
    func queue(_ job: UnownedJob) -> Bool {
        jobs.withLock { jobs in
            guard jobs.readerRunning else { return false }
            jobs.queued.append(job)
            if !jobs.readerBusy, !jobs.wakePending {
                // Under the lock: the reader thread closes the pipe only after it stopped
                // running, which it says under this lock.
                jobs.wakePending = true
                var byte: UInt8 = 1
                _ = Glibc.write(wakeWrite, &byte, 1)
            }
            return true
        }
    }

    // MARK: receiving

    func receive() async throws -> [UInt8]? { try await state.nextRead() }

    /// Switches to handing PDUs to `handler` (see `ImmediateByteChannel.deliver(to:)`). When the
    /// reader thread has already stopped, what is left and the end are handed over here.
    func deliver(to handler: @escaping Handler) {
        let finished = state.withLock { state -> (pdus: [[UInt8]], end: End)? in
            let unread = state.reads.takeUnread()
            guard state.readerRunning else { return (unread, state.end ?? .closed) }
            state.handler = handler
            state.handover += unread
            state.readPaused = false
            wake(&state)
            return nil
        }
        guard let finished else { return }
        for pdu in finished.pdus { handler(.pdu(pdu)) }
        handler(.end(finished.end.error))
    }

    // MARK: sending

    private enum Transmitted {
        case sent, wouldBlock, failed(ByteChannelError)
    }

    private func transmit(_ pdu: [UInt8]) -> Transmitted {
        while true {
            let sent = pdu.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent == pdu.count { return .sent }
            let code = errno
            if sent >= 0 { return .failed(.system(call: "send", errno: 0, text: "sent \(sent) of \(pdu.count) bytes")) }
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK, ENOBUFS: return .wouldBlock
            default: return .failed(Self.systemError("send", code: code))
            }
        }
    }

    /// Sends at once when nothing is queued and the socket has room; otherwise queues the PDU
    /// (order kept) for the reader thread to finish. Cancelling the caller does not take a queued
    /// PDU back: it completes or fails with the channel.
    func send(_ pdu: [UInt8]) async throws {
        guard !pdu.isEmpty else { throw ByteChannelError.emptyPDU }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            do throws(ByteChannelError) {
                if try submit(pdu, continuation: continuation) { continuation.resume() }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    func enqueue(_ pdu: [UInt8]) throws(ByteChannelError) {
        guard !pdu.isEmpty else { throw .emptyPDU }
        _ = try submit(pdu, continuation: nil)
    }

    /// True when the PDU left at once; false when it was queued with `continuation`.
    ///
    /// The system call runs outside the lock, with the socket claimed (`transmitting`): a send
    /// wakes the peer, and a woken peer may take the CPU from the sender at once. Holding the
    /// lock through the call left the reader thread (handed the peer's answer) and other
    /// senders spinning on a lock whose holder was not running.
    private func submit(
        _ pdu: [UInt8], continuation: CheckedContinuation<Void, any Error>?
    ) throws(ByteChannelError) -> Bool {
        let claimed = try state.withLock { state throws(ByteChannelError) -> Bool in
            if let end = state.end { throw Self.sendError(after: end) }
            if state.sends.isEmpty, !state.transmitting {
                state.transmitting = true
                return true
            }
            state.sends.append((pdu, continuation))
            if !state.transmitting { wake(&state) }
            return false
        }
        guard claimed else { return false }
        let result = transmit(pdu)
        let (settled, close) = state.withLock { state -> (Settled, Bool) in
            let settled = settle(result, of: (pdu, continuation), in: &state)
            // What queued behind this send goes out from the reader thread.
            if !state.sends.isEmpty { wake(&state) }
            return (settled, state.closeAfterTransmit)
        }
        if close { Glibc.close(descriptor) }
        switch settled {
        case .sent: return true
        case .queued: return false
        case .refused(let error): throw error
        }
    }

    /// On the reader thread, once `poll` says the socket has room: sends what is queued, in
    /// order, each system call outside the lock as in `submit`.
    func flushSends() {
        while true {
            let next = state.withLock { state -> Send? in
                guard state.end == nil, !state.transmitting, !state.sends.isEmpty else { return nil }
                state.transmitting = true
                return state.sends.removeFirst()
            }
            guard let next else { return }
            let result = transmit(next.pdu)
            let more = state.withLock { state -> Bool in
                switch settle(result, of: next, in: &state) {
                case .sent:
                    next.continuation?.resume()
                    return true
                case .queued:
                    return false
                case .refused(let error):
                    // A PDU nobody waits for (`enqueue`) that cannot be sent ends the channel.
                    guard let continuation = next.continuation else {
                        endLocked(&state, .failed(error))
                        return false
                    }
                    continuation.resume(throwing: error)
                    return true
                }
            }
            if !more { return }
        }
    }

    /// What became of a PDU sent with the socket claimed.
    private enum Settled {
        case sent
        /// The socket was full: the PDU is back at the head of the queue.
        case queued
        case refused(ByteChannelError)
    }

    /// Releases the claim on the socket and settles the PDU sent under it, in the one lock
    /// section, so no other send can go out between a full socket and the PDU's return to
    /// the head of the queue.
    private func settle(_ result: Transmitted, of send: Send, in state: inout State) -> Settled {
        state.transmitting = false
        switch result {
        case .sent:
            return .sent
        case .failed(let error):
            return .refused(error)
        case .wouldBlock:
            if let end = state.end { return .refused(Self.sendError(after: end)) }
            state.sends.insert(send, at: 0)
            return .queued
        }
    }

    // MARK: ending

    /// Stops the channel once: waiting receivers get nil (or the error), waiting senders an
    /// error, and the reader thread closes the descriptor and stops. After end-of-file, PDUs
    /// already read stay readable; after `close()` they are dropped.
    func end(_ reason: End) {
        state.withLock { endLocked(&$0, reason) }
    }

    func endLocked(_ state: inout State, _ reason: End) {
        guard state.end == nil else { return }
        state.end = reason
        if case .closed = reason { _ = state.reads.takeUnread() }
        state.reads.finishWaiting(reason.error)
        for waiting in state.sends { waiting.continuation?.resume(throwing: Self.sendError(after: reason)) }
        state.sends.removeAll()
        wake(&state)
    }

    func wake(_ state: inout State) { state.wake() }

    /// On the reader thread as it stops: nothing may wake it any more, so the pipe can go.
    func closeWakePipe() {
        Glibc.close(wakeRead)
        Glibc.close(wakeWrite)
    }

    private static func sendError(after end: End) -> ByteChannelError {
        end.error ?? .closed
    }

    static func systemError(_ call: String, code: Int32 = errno) -> ByteChannelError {
        .system(call: call, errno: code, text: String(cString: strerror(code)))
    }
}
