#if canImport(Glibc)
    import Glibc
#endif

/// The reader thread of a `SocketChannel`: `poll` on the socket and the wake pipe, drain every
/// datagram that is ready, finish queued sends when the socket has room, and stop (closing the
/// descriptor) once the channel has ended.
extension SocketChannelCore {
    private enum Received {
        case pdu([UInt8]), wouldBlock, endOfFile, failed(ByteChannelError)
    }

    private struct Step {
        var handler: Handler?
        var handover: [[UInt8]]
        var read: Bool
        var write: Bool
    }

    /// Runs until the channel ends; `executor` runs the jobs queued for this thread.
    func runReader(executor: ReaderExecutor) {
        var buffer = [UInt8](repeating: 0, count: maximumPDUSize)
        var descriptors = [
            pollfd(fd: descriptor, events: 0, revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let step = state.withLock { state -> Step? in
                guard state.end == nil else { return nil }
                state.wakePending = false
                defer { state.handover.removeAll() }
                // A send in its system call elsewhere wakes this thread when it returns.
                return Step(
                    handler: state.handler, handover: state.handover, read: !state.readPaused,
                    write: !state.sends.isEmpty && !state.transmitting)
            }
            guard let step else { break }
            let handingOver = step.handler != nil && !step.handover.isEmpty
            let queued = jobs.withLock { jobs in
                defer { jobs.queued.removeAll() }
                jobs.wakePending = false
                // Busy until nothing is left to hand over or run: then it sleeps in `poll`.
                jobs.readerBusy = handingOver || !jobs.queued.isEmpty
                return jobs.queued
            }
            if let handler = step.handler {
                for pdu in step.handover { handler(.pdu(pdu)) }
            }
            for job in queued { executor.run(job) }
            // After work, the socket is only looked at (what the work queued or changed is taken
            // up at the next turn, before sleeping): jobs that keep queueing jobs never starve it.
            let worked = handingOver || !queued.isEmpty
            // A negative descriptor is skipped by poll: with reading paused and nothing to send,
            // a hung-up socket must not wake the loop over and over.
            descriptors[0].fd = step.read || step.write ? descriptor : -1
            descriptors[0].events = Int16((step.read ? POLLIN : 0) | (step.write ? POLLOUT : 0))
            descriptors[0].revents = 0
            descriptors[1].revents = 0
            if poll(&descriptors, 2, worked ? 0 : -1) < 0 {
                if errno == EINTR { continue }
                end(.failed(Self.systemError("poll")))
                break
            }
            // Jobs queued by what is read now (a task resumed by a PDU) wait for the next turn.
            jobs.withLock { $0.readerBusy = true }
            if descriptors[1].revents != 0 { drainWakePipe() }
            let events = Int32(descriptors[0].revents)
            if step.write, events & Int32(POLLOUT | POLLERR | POLLHUP) != 0 { flushSends() }
            if step.read, events & Int32(POLLIN | POLLERR | POLLHUP) != 0 { readAvailable(into: &buffer) }
        }
        finish()
    }

    /// At most this many PDUs are read per turn: then the jobs queued for this thread (the
    /// device link handling them) run before the next are read.
    static let batch = 32

    /// Reads the datagrams that are ready (at most `batch`) and hands each on; stops early when
    /// reading pauses.
    private func readAvailable(into buffer: inout [UInt8]) {
        for _ in 0..<Self.batch {
            switch receiveOne(into: &buffer) {
            case .wouldBlock:
                return
            case .endOfFile:
                end(.endOfFile)
                return
            case .failed(let error):
                end(.failed(error))
                return
            case .pdu(let pdu):
                let (handler, batch, more) = state.withLock { state -> (Handler?, [[UInt8]], Bool) in
                    guard state.end == nil else { return (nil, [], false) }
                    if let handler = state.handler {
                        // PDUs read before the handler came go first.
                        guard !state.handover.isEmpty else { return (handler, [pdu], true) }
                        defer { state.handover.removeAll() }
                        return (handler, state.handover + [pdu], true)
                    }
                    guard state.reads.deliver(pdu), state.reads.unread.count >= Self.pauseAbove else {
                        return (nil, [], true)
                    }
                    state.readPaused = true
                    return (nil, [], false)
                }
                if let handler {
                    for pdu in batch { handler(.pdu(pdu)) }
                }
                if !more { return }
            }
        }
    }

    /// One `recv` into the thread's buffer, copied out at its exact size. MSG_TRUNC makes Linux
    /// return a seqpacket datagram's real length (unix sockets since 3.4, Bluetooth sockets
    /// likewise), so an oversized PDU is detected, not cut short.
    private func receiveOne(into buffer: inout [UInt8]) -> Received {
        while true {
            let length = buffer.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_TRUNC) | Int32(MSG_DONTWAIT))
            }
            if length > maximumPDUSize { return .failed(.oversizedPDU(size: length, maximum: maximumPDUSize)) }
            if length > 0 { return .pdu(Array(buffer[0..<length])) }
            if length == 0 { return .endOfFile }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case let code: return .failed(Self.systemError("recv", code: code))
            }
        }
    }

    private func drainWakePipe() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while bytes.withUnsafeMutableBytes({ Glibc.read(wakeRead, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// The channel ended: nothing can wake this thread any more, the descriptor is closed, and a
    /// handler gets what was handed over but not yet delivered, then the end.
    private func finish() {
        // First: from now on jobs go elsewhere, and nothing writes to the wake pipe for them.
        let left = jobs.withLock { jobs in
            defer { jobs.queued.removeAll() }
            jobs.readerRunning = false
            return jobs.queued
        }
        let (handler, handover, end, closeNow) = state.withLock { state -> (Handler?, [[UInt8]], End, Bool) in
            state.readerRunning = false
            // A send still in its system call closes the descriptor when it returns, so the
            // number is not reused under it.
            state.closeAfterTransmit = state.transmitting
            defer {
                state.handler = nil
                state.handover.removeAll()
            }
            return (state.handler, state.handover, state.end ?? .closed, !state.transmitting)
        }
        closeWakePipe()
        if closeNow { Glibc.close(descriptor) }
        // Nothing runs on this thread any more.
        for job in left { ReaderExecutor.elsewhere(job) }
        guard let handler else { return }
        for pdu in handover { handler(.pdu(pdu)) }
        handler(.end(end.error))
    }
}
