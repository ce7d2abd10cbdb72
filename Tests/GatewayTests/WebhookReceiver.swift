import Foundation
import LocalBroker
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A tiny HTTP/1.1 receiver on a loopback port for the webhook tests: it answers every
/// POST with 200 and records the body. `stop()` closes the listening socket, so the
/// gateway sees "connection refused" (the receiver is down); `start()` listens again on
/// the same port. Blocking POSIX sockets on one thread; one request per connection.
final class WebhookReceiver: Sendable {
    private struct State {
        var listener: Int32 = -1
        var bodies: [Data] = []
        var waiters: [(count: Int, continuation: CheckedContinuation<[Data], Never>)] = []
        var headers: [[String: String]] = []
    }

    private let state = Mutex(State())
    let port: UInt16

    /// Binds a free loopback port and starts accepting. The port is one outside the
    /// kernel's ephemeral range (`LocalBroker.freeLoopbackPort`), so no outgoing connection
    /// can take it while the receiver is stopped and `start()` can bind it again.
    init() throws {
        port = UInt16(try LocalBroker.freeLoopbackPort())
        let fd = try Self.listen(port: port)
        state.withLock { $0.listener = fd }
        spawnAcceptLoop(fd)
    }

    var url: String { "http://127.0.0.1:\(port)/alerts" }

    /// Bodies received so far, in order.
    var bodies: [Data] { state.withLock { $0.bodies } }
    var requestHeaders: [[String: String]] { state.withLock { $0.headers } }

    /// Returns once at least `count` bodies arrived.
    func waitForBodies(_ count: Int) async -> [Data] {
        await withCheckedContinuation { continuation in
            let ready: [Data]? = state.withLock { state in
                if state.bodies.count >= count { return state.bodies }
                state.waiters.append((count, continuation))
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Stops listening: new connections are refused until `start()`.
    func stop() {
        let fd = state.withLock { state -> Int32 in
            let fd = state.listener
            state.listener = -1
            return fd
        }
        guard fd >= 0 else { return }
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }

    /// Listens again on the same port.
    func start() throws {
        let fd = try Self.listen(port: port)
        state.withLock { $0.listener = fd }
        spawnAcceptLoop(fd)
    }

    private func spawnAcceptLoop(_ fd: Int32) {
        let thread = Thread { [self] in
            while true {
                let connection = accept(fd, nil, nil)
                guard connection >= 0 else { return }
                handle(connection)
            }
        }
        thread.start()
    }

    private func handle(_ connection: Int32) {
        defer { close(connection) }
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        var headerEnd: Int?
        var contentLength = 0
        var headers: [String: String] = [:]
        while true {
            let count = read(connection, &chunk, chunk.count)
            guard count > 0 else { return }
            buffer += chunk[0..<count]
            if headerEnd == nil, let end = Self.find([13, 10, 13, 10], in: buffer) {
                headerEnd = end + 4
                let head = String(decoding: buffer[0..<end], as: UTF8.self)
                for line in head.split(separator: "\r\n").dropFirst() {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    guard parts.count == 2 else { continue }
                    headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces)
                }
                contentLength = Int(headers["content-length"] ?? "0") ?? 0
            }
            if let headerEnd, buffer.count >= headerEnd + contentLength {
                let body = Data(buffer[headerEnd..<(headerEnd + contentLength)])
                let response = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                _ = response.utf8CString.withUnsafeBufferPointer { write(connection, $0.baseAddress, $0.count - 1) }
                let ready = state.withLock { state -> [(CheckedContinuation<[Data], Never>, [Data])] in
                    state.bodies.append(body)
                    state.headers.append(headers)
                    let due = state.waiters.filter { $0.count <= state.bodies.count }
                    state.waiters.removeAll { $0.count <= state.bodies.count }
                    return due.map { ($0.continuation, state.bodies) }
                }
                for (continuation, bodies) in ready { continuation.resume(returning: bodies) }
                return
            }
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where Array(haystack[start..<(start + needle.count)]) == needle
        {
            return start
        }
        return nil
    }

    private static func listen(port: UInt16) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ReceiverError("socket: errno \(errno)") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, Glibc.listen(fd, 16) == 0 else {
            close(fd)
            throw ReceiverError("bind/listen on 127.0.0.1:\(port): errno \(errno)")
        }
        return fd
    }
}

struct ReceiverError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
