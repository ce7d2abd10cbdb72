import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A raw TCP listener where a Tuya LAN device should be (TCP 6668 of a loopback address of
/// its own), playing a rogue peer: on every connection it waits for the gateway's first
/// bytes, writes what `reply` makes of them, then either closes or holds the connection
/// until the gateway closes it. Real sockets (blocking, on a thread of its own); what
/// happened comes out as events the test waits on.
final class RogueLANPeer: Sendable {
    enum Event: Sendable, Hashable {
        /// The n-th connection (from 1) was accepted.
        case accepted(Int)
        /// The gateway closed the n-th connection.
        case closedByGateway(Int)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let ip: String
    let events: AsyncStream<Event>
    private let sink: AsyncStream<Event>.Continuation
    private let listener: Int32
    private let open = Mutex<Set<Int32>>([])
    private let count = Mutex(0)
    private let stopping = Mutex(false)
    private let stopRequested = Mutex(false)
    private let listenerClosed = DispatchSemaphore(value: 0)
    private let reply: @Sendable (_ first: [UInt8]) -> (bytes: [UInt8], thenClose: Bool)

    /// Connections accepted so far.
    var accepted: Int { count.withLock { $0 } }

    /// Listens on `ip:port`; `reply` gets the gateway's first bytes and returns what to write,
    /// and whether to close the connection after writing.
    init(
        ip: String, port: Int = 6668,
        reply: @escaping @Sendable (_ first: [UInt8]) -> (bytes: [UInt8], thenClose: Bool)
    ) throws {
        self.ip = ip
        (events, sink) = AsyncStream.makeStream(of: Event.self)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, ip, &address.sin_addr)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 8) == 0 else {
            let code = errno
            close(fd)
            throw Failure(description: "bind/listen \(ip):\(port): \(String(cString: strerror(code)))")
        }
        listener = fd
        self.reply = reply
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "rogue LAN peer \(ip)"
        thread.start()
    }

    /// Accepts until `stop`, then closes the listener: only this thread touches it, so it
    /// never accepts on a descriptor number reused by someone else's socket.
    private func acceptLoop() {
        defer {
            close(listener)
            listenerClosed.signal()
        }
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                // Only `stop` ends the loop (its shutdown fails the accept): the listener stays
                // open, so `stop` never touches a descriptor number someone else reuses.
                if stopping.withLock({ $0 }) { return }
                continue
            }
            let number = count.withLock { count in
                count += 1
                return count
            }
            let stopped = open.withLock { open in
                if stopping.withLock({ $0 }) { return true }
                open.insert(connection)
                return false
            }
            if stopped {
                close(connection)
                return
            }
            sink.yield(.accepted(number))
            let serving = Thread { [self] in serve(connection, number: number) }
            serving.start()
        }
    }

    private func serve(_ fd: Int32, number: Int) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let first = Self.read(fd, into: &buffer)
        guard !first.isEmpty else {
            finish(fd, event: .closedByGateway(number))
            return
        }
        let (bytes, thenClose) = reply(first)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count < 0, errno == EINTR { continue }
            // The gateway may close while a flood is still going out.
            if count <= 0 { break }
            written += count
        }
        if thenClose {
            finish(fd, event: nil)
            return
        }
        // Hold the connection, discarding what arrives, until the gateway closes it.
        while !Self.read(fd, into: &buffer).isEmpty {}
        finish(fd, event: .closedByGateway(number))
    }

    /// Closes a connection (each serving thread closes its own, under the lock `stop` shuts
    /// connections down under, so nothing touches a descriptor after it is closed) and
    /// reports it.
    private func finish(_ fd: Int32, event: Event?) {
        open.withLock { open in
            open.remove(fd)
            close(fd)
        }
        if let event { sink.yield(event) }
    }

    /// One read; empty at the end of the stream or on an error.
    private static func read(_ fd: Int32, into buffer: inout [UInt8]) -> [UInt8] {
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            return count > 0 ? Array(buffer[0..<count]) : []
        }
    }

    /// Waits for `event`, bounded by a deadline that only turns a hang into a failure.
    func expect(_ event: Event) async throws {
        _ = try await events.first(within: 20, "the rogue peer's \(event)") { $0 == event }
    }

    /// Stops listening (the address is free again when this returns) and ends every connection
    /// still open: the gateway sees them closed, their threads close them.
    func stop() {
        let first = stopRequested.withLock { requested in
            defer { requested = true }
            return !requested
        }
        guard first else { return }
        sink.finish()
        // Shut down before the accept thread may end (it ends only once `stopping` is set),
        // so the listener is still ours here; then it closes the listener.
        shutdown(listener, Int32(SHUT_RDWR))
        stopping.withLock { $0 = true }
        _ = listenerClosed.wait(timeout: .now() + 5)
        open.withLock { open in
            for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }
}
