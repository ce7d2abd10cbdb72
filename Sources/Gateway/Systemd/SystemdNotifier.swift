#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Tells systemd how the daemon is doing, for a `Type=notify` unit with `WatchdogSec=`: the
/// sd_notify(3) protocol spoken natively (one datagram of `KEY=value` lines to the
/// `$NOTIFY_SOCKET` Unix socket), without libsystemd.
///
/// Outside systemd (`NOTIFY_SOCKET` unset or empty) every call is a no-op, so the daemon calls
/// it unconditionally. Each message opens, uses and closes its own socket, as `sd_notify` does:
/// the notifier holds only immutable values, so it is `Sendable` with nothing to lock and can be
/// used from any task (a ping every 15 s costs one `socket` + `sendto` + `close`).
///
/// ```swift
/// let systemd = try SystemdNotifier(environment: ProcessInfo.processInfo.environment)
/// try systemd.ready(status: "3 devices online")
/// // in the service group: await runWatchdog(notifier: systemd, clock: ContinuousClock())
/// try systemd.stopping()
/// ```
public struct SystemdNotifier: Hashable, Sendable {
    /// Where messages go; nil when not started by systemd, making every call a no-op.
    public let socket: NotifySocketAddress?
    /// How often to send `WATCHDOG=1`: half of `WATCHDOG_USEC`, as sd_watchdog_enabled(3)
    /// advises. Nil when the unit has no `WatchdogSec=`, when `WATCHDOG_PID` names another
    /// process (the watchdog is for the unit's main process only), or when there is no socket.
    public let watchdogInterval: Duration?

    /// A notifier that sends nothing, for a daemon run by hand or in tests.
    public static let disabled = SystemdNotifier(socket: nil, watchdogInterval: nil)

    /// Status texts are cut here: systemd reads one datagram into a 4 KiB buffer and drops
    /// longer ones, which would lose the `READY=1` sent with the status.
    public static let maximumStatusBytes = 1024

    public init(socket: NotifySocketAddress?, watchdogInterval: Duration?) {
        self.socket = socket
        self.watchdogInterval = watchdogInterval
    }

    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` as systemd sets them for the
    /// service's main process. Empty variables count as unset.
    /// - Parameter processID: this process, compared with `WATCHDOG_PID`; a parameter for tests.
    /// - Throws: `SystemdError.invalidVariable` for a value systemd would never write (a
    ///   relative or overlong socket path, a watchdog time that is not a positive number of
    ///   microseconds, a PID that is not a number), naming the variable and the fix.
    public init(environment: [String: String], processID: Int32 = getpid()) throws(SystemdError) {
        guard let value = environment["NOTIFY_SOCKET"], !value.isEmpty else {
            self = .disabled
            return
        }
        let socket = try NotifySocketAddress(environmentValue: value)
        self.init(socket: socket, watchdogInterval: try Self.watchdogInterval(environment, processID: processID))
    }

    /// Startup is done: systemd moves the unit from "activating" to "active" and starts units
    /// ordered after it. Sends `READY=1`, plus `STATUS=` when `status` is given.
    public func ready(status: String? = nil) throws(SystemdError) {
        var lines = ["READY=1"]
        if let status { lines.append("STATUS=" + Self.statusText(status)) }
        try send(lines)
    }

    /// A one-line status shown by `systemctl status` (`STATUS=`).
    public func status(_ text: String) throws(SystemdError) {
        try send(["STATUS=" + Self.statusText(text)])
    }

    /// Shutdown has begun (`STOPPING=1`): systemd shows "deactivating" and stops waiting for
    /// watchdog pings.
    public func stopping() throws(SystemdError) {
        try send(["STOPPING=1"])
    }

    /// The daemon is alive (`WATCHDOG=1`); see `runWatchdog(notifier:clock:onFailure:)`.
    public func watchdog() throws(SystemdError) {
        try send(["WATCHDOG=1"])
    }

    /// Sends one datagram holding `lines` joined by newlines. A no-op without a socket.
    func send(_ lines: [String]) throws(SystemdError) {
        guard let socket else { return }
        let message = Array(lines.joined(separator: "\n").utf8)
        #if canImport(Glibc)
            let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
            let descriptor = Darwin.socket(AF_UNIX, SOCK_DGRAM, 0)
        #endif
        guard descriptor >= 0 else { throw .socketFailed(errno: errno) }
        defer { close(descriptor) }
        try socket.withSocketAddress { address, length throws(SystemdError) in
            while true {
                let sent = message.withUnsafeBytes { bytes in
                    sendto(descriptor, bytes.baseAddress, bytes.count, Self.sendFlags, address, length)
                }
                if sent >= 0 { return }
                if errno != EINTR { throw .sendFailed(socket: socket, errno: errno) }
            }
        }
    }

    #if os(Linux)
        private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
        private static let sendFlags: Int32 = 0
    #endif

    /// One line of printable text: a newline in a device name must not smuggle in a second
    /// assignment (`STOPPING=1`), and an overlong status must not get the datagram dropped.
    static func statusText(_ text: String) -> String {
        var result = ""
        var bytes = 0
        for character in text {
            let isControl = character.unicodeScalars.contains { $0.properties.generalCategory == .control }
            let safe: Character = isControl ? " " : character
            let size = safe.utf8.count
            guard bytes + size <= maximumStatusBytes else { break }
            result.append(safe)
            bytes += size
        }
        return result
    }

    /// `WATCHDOG_USEC` halved, when the watchdog is meant for this process.
    private static func watchdogInterval(
        _ environment: [String: String], processID: Int32
    ) throws(SystemdError) -> Duration? {
        if let pid = environment["WATCHDOG_PID"], !pid.isEmpty {
            guard let owner = decimal(pid), owner > 0, owner <= Int64(Int32.max) else {
                throw .invalidVariable(name: "WATCHDOG_PID", value: pid, reason: "expected a process ID")
            }
            guard owner == Int64(processID) else { return nil }
        }
        guard let text = environment["WATCHDOG_USEC"], !text.isEmpty else { return nil }
        guard let microseconds = decimal(text), microseconds > 0 else {
            throw .invalidVariable(
                name: "WATCHDOG_USEC", value: text,
                reason: "expected a positive whole number of microseconds (WatchdogSec=30 gives 30000000)")
        }
        return .microseconds(microseconds) / 2
    }

    /// ASCII digits only (no sign, space or `0x`), within `Int64`.
    private static func decimal(_ text: String) -> Int64? {
        guard text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int64(text)
    }
}
