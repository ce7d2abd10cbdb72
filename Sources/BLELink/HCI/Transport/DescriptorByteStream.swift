import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An `HCIByteStream` over a file descriptor: a connected TCP or UNIX stream socket, a serial
/// port in raw mode, or an HCI user-channel socket.
///
/// Like `SocketChannel`: the descriptor is non-blocking and watched by two Dispatch sources on
/// a private serial queue, so no thread blocks and nothing polls. Reads are drained into
/// chunks; above 1 MiB unread the read source pauses, so a flooding controller cannot grow
/// memory without bound. Writes that do not fit wait for the write source, in order. The
/// descriptor is closed once both sources are cancelled.
public final class DescriptorByteStream: HCIByteStream {
    public let name: String
    private let core: DescriptorStreamCore

    /// Takes ownership of `descriptor` and makes it non-blocking and close-on-exec.
    public init(adopting descriptor: Int32, name: String) throws(HCIHostError) {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw .transport("\(name): fcntl(O_NONBLOCK) failed: \(String(cString: strerror(errno)))")
        }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        self.name = name
        core = DescriptorStreamCore(descriptor: descriptor)
    }

    deinit { core.end(nil) }

    public func read() async throws -> [UInt8]? { try await core.read() }

    public func write(_ bytes: [UInt8]) async throws { try await core.write(bytes) }

    public func close() async { core.end(nil) }
}

/// The state and sources behind a `DescriptorByteStream`.
final class DescriptorStreamCore: Sendable {
    private enum WriteSourceState { case inactive, running, suspended }

    private struct Write {
        var bytes: [UInt8]
        var offset: Int
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct Ended {
        var error: ByteChannelError?
    }

    private struct State: ReadQueueState {
        var reads = ReadQueue<[UInt8]>()
        var unreadBytes = 0
        var writes: [Write] = []
        /// Set once ended, with the error that ended it (none for end-of-file or `close()`).
        var ended: Ended?
        var readSource: (any DispatchSourceRead)?
        var writeSource: (any DispatchSourceWrite)?
        var readSuspended = false
        var writeState = WriteSourceState.inactive
        var liveSources = 2

        var readEnd: ReadEnd? { ended.map { ReadEnd(error: $0.error) } }

        /// Resumes reading paused for a slow reader once it has caught up.
        mutating func didTake(_ chunk: [UInt8]) {
            unreadBytes -= chunk.count
            guard readSuspended, ended == nil, unreadBytes < DescriptorStreamCore.resumeBelow else { return }
            readSuspended = false
            readSource?.resume()
        }
    }

    private static let pauseAbove = 1 << 20
    fileprivate static let resumeBelow = 1 << 16

    private let descriptor: Int32
    private let state = Mutex(State())

    init(descriptor: Int32) {
        self.descriptor = descriptor
        let queue = DispatchQueue(label: "youll.ble.hci-stream")
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

    func read() async throws -> [UInt8]? { try await state.nextRead() }

    private func readable() {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            let code = errno
            if count == 0 { return end(nil) }
            if count < 0 {
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK { return }
                return end(.system(call: "read", errno: code, text: String(cString: strerror(code))))
            }
            let chunk = Array(buffer[0..<count])
            let keepReading = state.withLock { state -> Bool in
                guard state.ended == nil else { return false }
                guard state.reads.deliver(chunk) else { return true }
                state.unreadBytes += chunk.count
                guard state.unreadBytes > Self.pauseAbove else { return true }
                state.readSuspended = true
                state.readSource?.suspend()
                return false
            }
            if !keepReading { return }
        }
    }

    func write(_ bytes: [UInt8]) async throws {
        guard !bytes.isEmpty else { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            state.withLock { state in
                if let ended = state.ended {
                    continuation.resume(throwing: ended.error ?? ByteChannelError.closed)
                    return
                }
                state.writes.append(Write(bytes: bytes, offset: 0, continuation: continuation))
                guard state.writes.count == 1 else { return }
                drainWrites(&state)
            }
        }
    }

    private func writable() {
        state.withLock { state in
            guard state.ended == nil else { return }
            drainWrites(&state)
        }
    }

    /// Writes queued bytes until the descriptor would block; arms or parks the write source.
    private func drainWrites(_ state: inout State) {
        while var first = state.writes.first {
            let remaining = first.bytes.count - first.offset
            let written = first.bytes.withUnsafeBytes {
                Glibc.write(descriptor, $0.baseAddress! + first.offset, remaining)
            }
            let code = errno
            if written < 0 {
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK || code == ENOBUFS { return armWriteSource(&state) }
                state.writes.removeFirst()
                first.continuation.resume(
                    throwing: ByteChannelError.system(call: "write", errno: code, text: String(cString: strerror(code)))
                )
                continue
            }
            first.offset += written
            if first.offset < first.bytes.count {
                state.writes[0] = first
                continue
            }
            state.writes.removeFirst()
            first.continuation.resume()
        }
        if state.writeState == .running {
            state.writeSource?.suspend()
            state.writeState = .suspended
        }
    }

    private func armWriteSource(_ state: inout State) {
        switch state.writeState {
        case .inactive: state.writeSource?.activate()
        case .suspended: state.writeSource?.resume()
        case .running: break
        }
        state.writeState = .running
    }

    /// Ends the stream once: waiting readers get nil (or the error) after the chunks already
    /// read, waiting writers an error; the sources are cancelled and the descriptor closed.
    func end(_ error: ByteChannelError?) {
        state.withLock { state in
            guard state.ended == nil else { return }
            state.ended = Ended(error: error)
            state.reads.finishWaiting(error)
            for write in state.writes { write.continuation.resume(throwing: error ?? ByteChannelError.closed) }
            state.writes.removeAll()
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
}
