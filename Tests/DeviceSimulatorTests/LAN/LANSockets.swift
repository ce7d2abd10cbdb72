import Foundation
import TuyaWire

#if canImport(Glibc)
    import Glibc
#endif

/// Plain blocking sockets with poll timeouts, playing a gateway against the simulated LAN
/// devices in tests. Reads wait on the socket (poll), never on a sleep.
final class LANTestSocket {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let fd: Int32

    /// A TCP connection to `ip:port`; throws ECONNREFUSED and friends as text.
    static func connect(to ip: String, port: Int) throws -> LANTestSocket {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var address = sockaddrIn(ip, port: port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw Failure(description: "connect \(ip):\(port): \(String(cString: strerror(code)))")
        }
        return LANTestSocket(fd: fd)
    }

    private init(fd: Int32) {
        self.fd = fd
    }

    /// A UDP socket bound to `ip:port` (SO_REUSEADDR, SO_BROADCAST).
    static func udp(bindTo ip: String, port: Int) throws -> LANTestSocket {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddrIn(ip, port: port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw Failure(description: "bind \(ip):\(port): \(String(cString: strerror(code)))")
        }
        return LANTestSocket(fd: fd)
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 {
                guard errno == EINTR else { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
                continue
            }
            sent += count
        }
    }

    func send(_ bytes: [UInt8], to ip: String, port: Int) throws {
        var address = Self.sockaddrIn(ip, port: port)
        let count = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { target in
                bytes.withUnsafeBytes {
                    sendto(fd, $0.baseAddress, $0.count, 0, target, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard count == bytes.count else { throw Failure(description: "sendto: \(String(cString: strerror(errno)))") }
    }

    /// The next bytes, nil at end of stream; throws when nothing came within `timeout`.
    func receive(timeout: Duration = .seconds(5)) throws -> [UInt8]? {
        try waitReadable(timeout)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 { return Array(buffer[..<count]) }
            if count == 0 { return nil }
            if errno == ECONNRESET { return nil }
            guard errno == EINTR else { throw Failure(description: "recv: \(String(cString: strerror(errno)))") }
        }
    }

    /// The next datagram and the address it came from.
    func receiveDatagram(timeout: Duration = .seconds(5)) throws -> (bytes: [UInt8], from: String) {
        try waitReadable(timeout)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var source = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let count = withUnsafeMutablePointer(to: &source) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                buffer.withUnsafeMutableBytes { recvfrom(fd, $0.baseAddress, $0.count, 0, address, &length) }
            }
        }
        guard count >= 0 else { throw Failure(description: "recvfrom: \(String(cString: strerror(errno)))") }
        let host = UInt32(bigEndian: source.sin_addr.s_addr)
        let text = "\(host >> 24).\(host >> 16 & 0xFF).\(host >> 8 & 0xFF).\(host & 0xFF)"
        return (Array(buffer[..<count]), text)
    }

    private func waitReadable(_ timeout: Duration) throws {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(
            timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        while true {
            let ready = poll(&descriptor, 1, milliseconds)
            if ready > 0 { return }
            if ready == 0 { throw Failure(description: "nothing arrived within \(timeout)") }
            guard errno == EINTR else { throw Failure(description: "poll: errno \(errno)") }
        }
    }

    private static func sockaddrIn(_ ip: String, port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, ip, &address.sin_addr)
        return address
    }
}

/// A gateway's side of one connection: our client session over a real socket.
final class LANTestClient {
    let socket: LANTestSocket
    var session: LANClientSession
    private var queue: [LANMessage] = []

    /// Connects and, for 3.4/3.5, completes the handshake.
    init(ip: String, port: Int, version: LANProtocolVersion, localKey: String) throws {
        let key = try AESKey(localKey: localKey)
        socket = try LANTestSocket.connect(to: ip, port: port)
        session = LANClientSession(version: version, localKey: key)
        let start = session.start()
        if !start.isEmpty {
            try socket.send(start)
            while !session.isEstablished {
                guard let bytes = try socket.receive() else {
                    throw LANTestSocket.Failure(description: "closed in handshake")
                }
                try absorb(bytes)
            }
        }
    }

    func send(_ request: LANRequest) throws {
        try socket.send(session.encode(request))
    }

    /// The next message from the device (queued or read).
    func next(timeout: Duration = .seconds(5)) throws -> LANMessage {
        while queue.isEmpty {
            guard let bytes = try socket.receive(timeout: timeout) else {
                throw LANTestSocket.Failure(description: "the device closed the connection")
            }
            try absorb(bytes)
        }
        return queue.removeFirst()
    }

    private func absorb(_ bytes: [UInt8]) throws {
        for event in session.receive(bytes) {
            switch event {
            case .send(let reply): try socket.send(reply)
            case .message(let message): queue.append(message)
            case .failed(let failure): throw failure
            case .established: break
            }
        }
    }
}
