#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why the gateway cannot talk to systemd: a variable systemd sets is unusable, or a message
/// could not be sent. Never fatal by itself; the daemon logs it (`description` names the
/// variable or socket and the cause) and decides whether to go on.
public enum SystemdError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `NOTIFY_SOCKET`, `WATCHDOG_USEC` or `WATCHDOG_PID` holds a value that cannot be used.
    case invalidVariable(name: String, value: String, reason: String)
    /// `socket(AF_UNIX, SOCK_DGRAM)` failed with `errno` (out of descriptors, or the address
    /// family is forbidden, e.g. by a `RestrictAddressFamilies=` without `AF_UNIX`).
    case socketFailed(errno: Int32)
    /// `sendto(2)` to the notification socket failed with `errno`.
    case sendFailed(socket: NotifySocketAddress, errno: Int32)

    public var description: String {
        switch self {
        case .invalidVariable(let name, let value, let reason):
            return "environment \(name)='\(Self.excerpt(value))': \(reason)"
        case .socketFailed(let code):
            var text = "cannot create a socket to notify systemd: \(Self.message(code))"
            if code == EAFNOSUPPORT || code == EPERM || code == EACCES {
                text += "; the unit's RestrictAddressFamilies= must include AF_UNIX"
            }
            return text
        case .sendFailed(let socket, let code):
            var text = "cannot notify systemd on \(socket): \(Self.message(code))"
            if code == ENOENT || code == ECONNREFUSED {
                text += "; nobody listens there (NOTIFY_SOCKET inherited from another service?)"
            } else if code == EACCES || code == EPERM {
                text += "; this user may not write to the socket"
            }
            return text
        }
    }

    /// `strerror` text with the number, so a log line can be searched either way.
    private static func message(_ code: Int32) -> String {
        String(cString: strerror(code)) + " (errno \(code))"
    }

    /// A hostile variable can be kilobytes long; the message keeps its head and its size.
    private static func excerpt(_ value: String) -> String {
        let limit = 80
        guard value.count > limit else { return value }
        return String(value.prefix(limit)) + "… (\(value.utf8.count) bytes)"
    }
}
