import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real Unix datagram socket standing in for systemd's notification socket. The address is
/// built here from the Linux rules (unix(7)), not with the code under test, so both sides
/// cannot share one mistake.
public final class NotifySocketListener {
    /// What `NOTIFY_SOCKET` holds for this socket: its path, or `@name`.
    public let environmentValue: String
    private let descriptor: Int32
    private let path: String?

    /// A socket bound to a fresh path under /tmp, or at `path`.
    public convenience init(path: String = NotifySocketListener.freshPath()) throws {
        try self.init(environmentValue: path, sunPath: Array(path.utf8) + [0], path: path)
    }

    /// A socket in the abstract namespace: `sun_path` is a NUL then the name, no terminator.
    public convenience init(abstractName: String) throws {
        try self.init(environmentValue: "@" + abstractName, sunPath: [0] + Array(abstractName.utf8), path: nil)
    }

    private init(environmentValue: String, sunPath: [UInt8], path: String?) throws {
        self.environmentValue = environmentValue
        self.path = path
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: sunPath) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + sunPath.count)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else {
            let code = errno
            close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
    }

    deinit {
        close(descriptor)
        if let path { unlink(path) }
    }

    public static func freshPath() -> String {
        "/tmp/youll-notify-\(UUID().uuidString.prefix(8)).sock"
    }

    /// The next queued datagram, or nil when none is queued. Never blocks: `sendto` on a Unix
    /// datagram socket has queued the message by the time it returns.
    public func receive() -> String? {
        var buffer = [UInt8](repeating: 0, count: 8192)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        guard count >= 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    /// The next datagram, waiting up to `timeout` for one (for a message from another
    /// process, which arrives when that process gets there); nil when none came.
    public func receive(waitingUpTo timeout: Duration) -> String? {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(
            timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return receive() }
            if ready < 0 && errno != EINTR { return nil }
        }
        return nil
    }
}
