import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A raw HTTP/1.1 exchange over a loopback TCP socket, for requests no well-behaved client
/// would send (a garbage request line, oversized headers). Reads until the server closes.
/// The blocking socket calls run on a Dispatch thread, never on Swift's cooperative pool
/// (two threads here), which the server under test needs to render its answer.
enum HTTPScrape {
    struct Answer {
        var status: Int?
        var head: String
        var body: String
    }

    /// Sends `request` as is to 127.0.0.1:`port` and returns what came back before the close.
    static func exchange(port: Int, request: [UInt8], read: Bool = true) async throws -> Answer {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try blockingExchange(port: port, request: request, read: read) })
            }
        }
    }

    /// Sends `request` and hangs up without waiting for an answer.
    static func abandon(port: Int, request: [UInt8]) async throws {
        _ = try await exchange(port: port, request: request, read: false)
    }

    private static func blockingExchange(port: Int, request: [UInt8], read: Bool) throws -> Answer {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        // The server may answer and close before everything is sent (431): a failed send is fine.
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while read {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        let text = String(decoding: received, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        let head = parts.first ?? ""
        let statusLine = head.split(separator: "\r\n").first ?? ""
        let status = statusLine.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        return Answer(status: status, head: head, body: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    static func get(port: Int, path: String) async throws -> Answer {
        try await exchange(port: port, request: Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
    }

    /// The value of the sample `series` (name with its labels, as exposed) in an exposition.
    static func sample(_ series: String, in body: String) -> Double? {
        for line in body.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }
}

/// Where a daemon under test serves metrics: written by its `metricsListening` hook.
final class ListeningPort: Sendable {
    private let value = Mutex<Int?>(nil)

    func set(_ port: Int) { value.withLock { $0 = port } }
    var port: Int? { value.withLock { $0 } }
}
