import CBluetooth  // its sys/socket.h is the one this module sees SOCK_STREAM and SOCK_CLOEXEC through
import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Opens H4 streams over sockets: TCP (`h4-tcp:HOST:PORT`, emulators such as Bumble's virtual
/// controller) and UNIX (`h4-unix:PATH`). TCP_NODELAY is set: HCI packets are small and a
/// delayed ACK would add 40 ms to every exchange (INTEROP.md, MQTT facts).
enum HCISocketConnector {
    static func tcp(host: String, port: Int, timeout: Duration) async throws(HCIHostError) -> DescriptorByteStream {
        let name = BLETransportSetting.h4TCP(host: host, port: port).description
        let result: Result<Int32, HCIHostError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: connectTCP(host: host, port: port, timeout: timeout, name: name))
            }
        }
        return try DescriptorByteStream(adopting: try result.get(), name: name)
    }

    static func unix(path: String) throws(HCIHostError) -> DescriptorByteStream {
        let name = BLETransportSetting.h4Unix(path: path).description
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else {
            throw .transport("\(name): the socket path is longer than \(capacity - 1) bytes")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .transport(failure(name, call: "socket", code: errno)) }
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard status == 0 else {
            let code = errno
            close(fd)
            throw .transport(failure(name, call: "connect", code: code))
        }
        return try DescriptorByteStream(adopting: fd, name: name)
    }

    /// One line for a failed socket call, with the fix for the usual causes.
    static func failure(_ name: String, call: String, code: Int32) -> String {
        let text = String(cString: strerror(code))
        switch code {
        case ECONNREFUSED:
            return "\(name): connection refused: is the controller (or its emulator) listening there?"
        case ENOENT:
            return "\(name): no such socket: is the controller emulator running?"
        case ETIMEDOUT:
            return "\(name): no answer: check the host and port, and any firewall between"
        case EACCES, EPERM:
            return "\(name): permission denied (\(call)): check the socket's permissions"
        default:
            return "\(name): \(call) failed: \(text) (errno \(code))"
        }
    }

    /// Resolves and connects, trying each address in turn; blocking, so run on a Dispatch worker.
    private static func connectTCP(host: String, port: Int, timeout: Duration, name: String) -> Result<
        Int32, HCIHostError
    > {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            return .failure(.transport("\(name): cannot resolve '\(host)': \(String(cString: gai_strerror(status)))"))
        }
        defer { freeaddrinfo(list) }
        var lastError = ECONNREFUSED
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            entry = current.pointee.ai_next
            let fd = socket(current.pointee.ai_family, current.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else {
                lastError = errno
                continue
            }
            let code = connect(fd, current.pointee.ai_addr, current.pointee.ai_addrlen, timeout: timeout)
            if code == 0 {
                var one: Int32 = 1
                _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                return .success(fd)
            }
            close(fd)
            lastError = code
        }
        return .failure(.transport(failure(name, call: "connect", code: lastError)))
    }

    /// A non-blocking connect bounded by `timeout`; 0 or the errno.
    private static func connect(
        _ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t, timeout: Duration
    ) -> Int32 {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        defer { _ = fcntl(fd, F_SETFL, flags) }
        if Glibc.connect(fd, address, length) == 0 { return 0 }
        guard errno == EINPROGRESS else { return errno }
        let milliseconds = Int32(
            clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        var ready: Int32
        repeat { ready = poll(&entry, 1, milliseconds) } while ready < 0 && errno == EINTR
        guard ready > 0 else { return ready == 0 ? ETIMEDOUT : errno }
        var error: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) == 0 ? error : errno
    }
}
