import CBluetooth  // its sys/socket.h is the one this module sees SOCK_SEQPACKET through
import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A `ByteChannel` over a connected `SOCK_SEQPACKET` socket: an L2CAP LE socket to a device, or
/// one end of `SocketChannel.pair()` for tests and the simulator.
///
/// Threading: the descriptor is non-blocking and watched by two Dispatch sources on a private
/// serial queue, so no thread ever blocks in `recv`/`send` and nothing polls in a loop. The read
/// source drains every queued datagram into a buffer (pausing above 64 unread PDUs, so a
/// flooding peer cannot grow memory without bound); the write source is resumed only while a
/// send is waiting for buffer space. Continuations are resumed from that queue, never from the
/// caller's executor. The descriptor is closed once both sources are cancelled, after `close()`,
/// end-of-file, a socket error, or when the channel is released.
public final class SocketChannel: ByteChannel {
    private let core: SocketChannelCore

    /// Takes ownership of `descriptor`, a connected seqpacket socket, and makes it non-blocking
    /// and close-on-exec. `maximumPDUSize` bounds one received datagram (an ATT PDU is at most
    /// 517 bytes); a longer one ends the channel with `oversizedPDU`.
    public init(adopting descriptor: Int32, maximumPDUSize: Int = 1024) throws(ByteChannelError) {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw SocketChannelCore.systemError("fcntl(O_NONBLOCK)")
        }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        core = SocketChannelCore(descriptor: descriptor, maximumPDUSize: max(1, maximumPDUSize))
    }

    /// Two connected channels over `socketpair(AF_UNIX, SOCK_SEQPACKET)`: what one sends, the
    /// other receives as one PDU. Closing either end is end-of-file for the other.
    public static func pair(maximumPDUSize: Int = 1024) throws(ByteChannelError) -> (SocketChannel, SocketChannel) {
        var descriptors: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &descriptors) == 0
        else { throw SocketChannelCore.systemError("socketpair(AF_UNIX, SOCK_SEQPACKET)") }
        do throws(ByteChannelError) {
            let first = try SocketChannel(adopting: descriptors[0], maximumPDUSize: maximumPDUSize)
            do throws(ByteChannelError) {
                return (first, try SocketChannel(adopting: descriptors[1], maximumPDUSize: maximumPDUSize))
            } catch {
                Glibc.close(descriptors[1])
                throw error
            }
        } catch {
            Glibc.close(descriptors[0])
            throw error
        }
    }

    deinit { core.end(.closed) }

    public func send(_ pdu: [UInt8]) async throws { try await core.send(pdu) }

    public func receive() async throws -> [UInt8]? { try await core.receive() }

    public func close() async { core.end(.closed) }
}

/// The state and Dispatch sources behind a `SocketChannel`; separate so the sources' handlers
/// can hold it while the public object can still be released (its `deinit` closes).
final class SocketChannelCore: Sendable {
    /// Why the channel stopped.
    enum End {
        case endOfFile, closed, failed(ByteChannelError)
    }

    private enum WriteSourceState { case inactive, running, suspended }

    private struct State {
        var unread: [[UInt8]] = []
        var receivers: [(id: Int, continuation: CheckedContinuation<[UInt8]?, any Error>)] = []
        var sends: [(pdu: [UInt8], continuation: CheckedContinuation<Void, any Error>)] = []
        var end: End?
        var readSource: (any DispatchSourceRead)?
        var writeSource: (any DispatchSourceWrite)?
        var readSuspended = false
        var writeState = WriteSourceState.inactive
        var liveSources = 2
        var nextID = 0
    }

    private static let pauseAbove = 64
    private static let resumeBelow = 16

    private let descriptor: Int32
    private let maximumPDUSize: Int
    private let state = Mutex(State())

    init(descriptor: Int32, maximumPDUSize: Int) {
        self.descriptor = descriptor
        self.maximumPDUSize = maximumPDUSize
        let queue = DispatchQueue(label: "youll.ble.socket-channel")
        // Made inside the lock: Dispatch sources are not Sendable, so they live only in `state`.
        state.withLock { state in
            let read = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
            let write = DispatchSource.makeWriteSource(fileDescriptor: descriptor, queue: queue)
            read.setEventHandler { [self] in readable() }
            write.setEventHandler { [self] in writable() }
            read.setCancelHandler { [self] in sourceCancelled() }
            write.setCancelHandler { [self] in sourceCancelled() }
            state.readSource = read
            state.writeSource = write
            read.activate()
        }
    }

    // MARK: receiving

    func receive() async throws -> [UInt8]? {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8]?, any Error>) in
                state.withLock { state in
                    if !state.unread.isEmpty {
                        continuation.resume(returning: state.unread.removeFirst())
                        if state.readSuspended, state.end == nil, state.unread.count < Self.resumeBelow {
                            state.readSuspended = false
                            state.readSource?.resume()
                        }
                    } else if let end = state.end {
                        switch end {
                        case .endOfFile, .closed: continuation.resume(returning: nil)
                        case .failed(let error): continuation.resume(throwing: error)
                        }
                    } else if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        state.receivers.append((id, continuation))
                    }
                }
            }
        } onCancel: {
            state.withLock { state in
                guard let index = state.receivers.firstIndex(where: { $0.id == id }) else { return }
                state.receivers.remove(at: index).continuation.resume(throwing: CancellationError())
            }
        }
    }

    private enum Received {
        case pdu([UInt8]), wouldBlock, endOfFile, failed(ByteChannelError)
    }

    /// One `recv`. MSG_TRUNC makes Linux return a seqpacket datagram's real length (unix sockets
    /// since 3.4, Bluetooth sockets likewise), so an oversized PDU is detected, not cut short.
    private func receiveOne() -> Received {
        while true {
            var length = 0
            var code: Int32 = 0
            let buffer = [UInt8](unsafeUninitializedCapacity: maximumPDUSize) { buffer, count in
                length = recv(descriptor, buffer.baseAddress, maximumPDUSize, Int32(MSG_TRUNC) | Int32(MSG_DONTWAIT))
                code = errno
                count = min(max(length, 0), maximumPDUSize)
            }
            if length > maximumPDUSize { return .failed(.oversizedPDU(size: length, maximum: maximumPDUSize)) }
            if length > 0 { return .pdu(buffer) }
            if length == 0 { return .endOfFile }
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .failed(Self.systemError("recv", code: code))
            }
        }
    }

    private func readable() {
        while true {
            switch receiveOne() {
            case .wouldBlock:
                return
            case .endOfFile:
                end(.endOfFile)
                return
            case .failed(let error):
                end(.failed(error))
                return
            case .pdu(let pdu):
                let keepReading = state.withLock { state -> Bool in
                    guard state.end == nil else { return false }
                    if !state.receivers.isEmpty {
                        state.receivers.removeFirst().continuation.resume(returning: pdu)
                        return true
                    }
                    state.unread.append(pdu)
                    guard state.unread.count >= Self.pauseAbove else { return true }
                    state.readSuspended = true
                    state.readSource?.suspend()
                    return false
                }
                if !keepReading { return }
            }
        }
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
    /// (order kept) and lets the write source finish it. Cancelling the caller does not take a
    /// queued PDU back: it completes or fails with the channel.
    func send(_ pdu: [UInt8]) async throws {
        guard !pdu.isEmpty else { throw ByteChannelError.emptyPDU }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            state.withLock { state in
                if let end = state.end {
                    continuation.resume(throwing: Self.sendError(after: end))
                    return
                }
                if state.sends.isEmpty {
                    switch transmit(pdu) {
                    case .sent:
                        continuation.resume()
                        return
                    case .failed(let error):
                        continuation.resume(throwing: error)
                        return
                    case .wouldBlock:
                        break
                    }
                }
                state.sends.append((pdu, continuation))
                switch state.writeState {
                case .inactive: state.writeSource?.activate()
                case .suspended: state.writeSource?.resume()
                case .running: break
                }
                state.writeState = .running
            }
        }
    }

    private func writable() {
        state.withLock { state in
            guard state.end == nil else { return }
            while let first = state.sends.first {
                switch transmit(first.pdu) {
                case .wouldBlock:
                    return
                case .sent:
                    state.sends.removeFirst()
                    first.continuation.resume()
                case .failed(let error):
                    state.sends.removeFirst()
                    first.continuation.resume(throwing: error)
                }
            }
            state.writeSource?.suspend()
            state.writeState = .suspended
        }
    }

    // MARK: ending

    /// Stops the channel once: waiting receivers get nil (or the error), waiting senders an
    /// error, both sources are cancelled and the descriptor is closed when they are gone. After
    /// end-of-file, PDUs already read stay readable; after `close()` they are dropped.
    func end(_ reason: End) {
        state.withLock { state in
            guard state.end == nil else { return }
            state.end = reason
            if case .closed = reason { state.unread.removeAll() }
            for receiver in state.receivers {
                if case .failed(let error) = reason {
                    receiver.continuation.resume(throwing: error)
                } else {
                    receiver.continuation.resume(returning: nil)
                }
            }
            state.receivers.removeAll()
            for waiting in state.sends { waiting.continuation.resume(throwing: Self.sendError(after: reason)) }
            state.sends.removeAll()
            // A cancelled source runs its cancel handler only once it is active and resumed.
            state.readSource?.cancel()
            if state.readSuspended { state.readSource?.resume() }
            state.writeSource?.cancel()
            switch state.writeState {
            case .inactive: state.writeSource?.activate()
            case .suspended: state.writeSource?.resume()
            case .running: break
            }
            state.readSource = nil
            state.writeSource = nil
        }
    }

    private func sourceCancelled() {
        let last = state.withLock { state in
            state.liveSources -= 1
            return state.liveSources == 0
        }
        if last { Glibc.close(descriptor) }
    }

    private static func sendError(after end: End) -> ByteChannelError {
        if case .failed(let error) = end { return error }
        return .closed
    }

    static func systemError(_ call: String, code: Int32 = errno) -> ByteChannelError {
        .system(call: call, errno: code, text: String(cString: strerror(code)))
    }
}
