#if canImport(Glibc)
    import Glibc
#endif

/// Sockets for simulated LAN devices, opened here rather than by SwiftNIO so they are
/// close-on-exec: a child process started while a device listens (a test's tinytuya, a
/// broker) must not inherit the listener and keep the address open after the device goes
/// offline or moves. SwiftNIO takes them over with `withBoundSocket`.
enum LANSocketFactory {
    /// A listening TCP socket at `ip:port`.
    static func listener(ip: String, port: Int) throws(LANSimulatorError) -> CInt {
        let fd = try open(type: Int32(SOCK_STREAM.rawValue), ip: ip, port: port)
        guard listen(fd, 128) == 0 else { throw failure(fd, ip: ip, port: port, what: "listen") }
        return fd
    }

    /// A UDP socket bound to `ip:port` that may send broadcasts.
    static func datagram(ip: String, port: Int) throws(LANSimulatorError) -> CInt {
        let fd = try open(type: Int32(SOCK_DGRAM.rawValue), ip: ip, port: port)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &one, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }

    /// Raises the soft open-file limit towards `count` (up to the hard limit): each device
    /// holds a listener, a UDP socket and a connection, past the common default of 1,024
    /// at a few hundred devices.
    static func raiseDescriptorLimit(to count: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(count) else { return }
        limit.rlim_cur = min(rlim_t(count), limit.rlim_max)
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    private static func open(type: Int32, ip: String, port: Int) throws(LANSimulatorError) -> CInt {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(truncatingIfNeeded: port).bigEndian
        guard inet_pton(AF_INET, ip, &address.sin_addr) == 1 else { throw .invalidAddress(ip) }
        let fd = socket(AF_INET, type | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else {
            throw .cannotListen(address: ip, port: port, reason: "socket: \(String(cString: strerror(errno)))")
        }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw failure(fd, ip: ip, port: port, what: "bind") }
        return fd
    }

    private static func failure(_ fd: CInt, ip: String, port: Int, what: String) -> LANSimulatorError {
        let reason = "\(what): \(String(cString: strerror(errno)))"
        close(fd)
        return .cannotListen(address: ip, port: port, reason: reason)
    }
}
