#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where `$NOTIFY_SOCKET` points (sd_notify(3)): a file-system path, or a Linux
/// abstract-namespace name written `@name`, whose `sun_path` starts with a NUL byte.
public enum NotifySocketAddress: Hashable, Sendable, CustomStringConvertible {
    /// An absolute path to a bound datagram socket, e.g. `/run/systemd/notify`.
    case path(String)
    /// An abstract-namespace name, without the `@` that stands for the leading NUL.
    case abstract(String)

    /// Bytes in `sockaddr_un.sun_path` (108 on Linux).
    static let sunPathCapacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)

    /// Reads the value of `NOTIFY_SOCKET` as systemd writes it.
    ///
    /// Refuses what `sendto` cannot use, before the first message: a relative path, a bare `@`,
    /// a NUL byte, `vsock:` addresses (systemd ≥ 254 in VMs; not supported here), and a path
    /// longer than `sun_path` holds.
    public init(environmentValue value: String) throws(SystemdError) {
        func invalid(_ reason: String) -> SystemdError {
            .invalidVariable(name: "NOTIFY_SOCKET", value: value, reason: reason)
        }
        if value.utf8.contains(0) { throw invalid("contains a NUL byte") }
        if value.hasPrefix("@") {
            let name = String(value.dropFirst())
            guard !name.isEmpty else { throw invalid("an abstract socket needs a name after '@'") }
            self = .abstract(name)
        } else if value.hasPrefix("/") {
            self = .path(value)
        } else if value.hasPrefix("vsock:") {
            throw invalid("vsock addresses are not supported; expected an absolute path or an @abstract name")
        } else {
            throw invalid("expected an absolute socket path or an @abstract name")
        }
        let used = sunPathBytes.count
        guard used <= Self.sunPathCapacity else {
            let limit = Self.sunPathCapacity - 1
            switch self {
            case .path: throw invalid("the path is \(used - 1) bytes; a Unix socket path holds at most \(limit)")
            case .abstract:
                throw invalid("the name is \(used - 1) bytes; an abstract socket name holds at most \(limit)")
            }
        }
    }

    public var description: String {
        switch self {
        case .path(let path): path
        case .abstract(let name): "@" + name
        }
    }

    /// What goes in `sun_path`: the path and its terminating NUL, or a NUL and the name (an
    /// abstract name is exactly as long as the address length says, with no terminator).
    var sunPathBytes: [UInt8] {
        switch self {
        case .path(let path): Array(path.utf8) + [0]
        case .abstract(let name): [0] + Array(name.utf8)
        }
    }

    /// Calls `body` with the `sockaddr_un` for this address and its exact length.
    /// The initializer has checked that the bytes fit in `sun_path`.
    func withSocketAddress<Result>(
        _ body: (UnsafePointer<sockaddr>, socklen_t) throws(SystemdError) -> Result
    ) throws(SystemdError) -> Result {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = sunPathBytes
        withUnsafeMutableBytes(of: &address.sun_path) { sunPath in
            sunPath.copyBytes(from: bytes.prefix(sunPath.count))
        }
        let length = socklen_t(
            MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + min(bytes.count, Self.sunPathCapacity))
        return try withUnsafePointer(to: &address) { pointer throws(SystemdError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address throws(SystemdError) in
                try body(address, length)
            }
        }
    }
}
