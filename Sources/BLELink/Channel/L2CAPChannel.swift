import CBluetooth
import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Connects to a device's ATT channel: an L2CAP LE socket on the fixed channel 4 (Core spec
/// Vol 3 Part A §2.1), which carries one ATT PDU per packet, just like `SocketChannel.pair()`.
///
/// Unverified on hardware: the build machines' kernel has no Bluetooth, so only the failure
/// path (`socket(AF_BLUETOOTH)` → EAFNOSUPPORT) runs in tests.
public enum L2CAPChannel {
    /// How the device's address was advertised: public (from the IEEE) or random (static or
    /// private). The scan reports it; a wrong type fails to connect.
    public enum AddressType: Sendable, Hashable {
        case `public`, random

        var bdaddrType: UInt8 {
            switch self {
            case .public: UInt8(BDADDR_LE_PUBLIC)
            case .random: UInt8(BDADDR_LE_RANDOM)
            }
        }
    }

    /// The fixed L2CAP channel of the Attribute Protocol on LE.
    static let attChannel: UInt16 = 4

    /// The shortest timeout `connect` uses: LE connection setup can take seconds when the device
    /// advertises slowly, and 10 s is the floor the project sets (issue 5).
    public static let minimumTimeout: Duration = .seconds(10)

    /// Opens an L2CAP LE socket bound to any adapter and connects it to `address`. The connect is
    /// non-blocking; a Dispatch worker (not a Swift concurrency thread) waits in `poll` for up to
    /// `timeout`, raised to `minimumTimeout` when shorter.
    public static func connect(
        address: String, addressType: AddressType, timeout: Duration = minimumTimeout
    ) async throws(L2CAPConnectError) -> SocketChannel {
        guard let device = bluetoothAddress(address) else { throw .invalidAddress(address) }
        let timeout = max(timeout, minimumTimeout)
        let fd = socket(
            AF_BLUETOOTH,
            Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
            BTPROTO_L2CAP)
        guard fd >= 0 else { throw unavailable(errno, address: address, call: "socket(AF_BLUETOOTH, L2CAP)") }

        var local = socketAddress(youll_bdaddr_any(), type: UInt8(BDADDR_LE_PUBLIC))
        guard withSocketAddress(&local, { bind(fd, $0, $1) }) == 0 else {
            let code = errno
            close(fd)
            throw unavailable(code, address: address, call: "bind")
        }
        var remote = socketAddress(device, type: addressType.bdaddrType)
        if withSocketAddress(&remote, { Glibc.connect(fd, $0, $1) }) != 0, errno != EINPROGRESS {
            let code = errno
            close(fd)
            throw unavailable(code, address: address, call: "connect")
        }
        let code = await waitUntilConnected(fd, timeout: timeout)
        guard code == 0 else {
            close(fd)
            if code == ETIMEDOUT { throw .timedOut(address: address, after: timeout) }
            throw unavailable(code, address: address, call: "connect")
        }
        do {
            return try SocketChannel(adopting: fd, maximumPDUSize: 1024)
        } catch {
            close(fd)
            throw .failed(address: address, call: "fcntl", errno: 0, text: error.description)
        }
    }

    /// `AA:BB:CC:DD:EE:FF` → `bdaddr_t`, whose bytes are stored least significant first; nil for
    /// anything else (`str2ba` would accept garbage and connect to 00:00:…).
    static func bluetoothAddress(_ text: String) -> bdaddr_t? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard part.count == 2, part.allSatisfy(\.isHexDigit), let byte = UInt8(part, radix: 16) else { return nil }
            bytes.append(byte)
        }
        bytes.reverse()
        return bdaddr_t(b: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5]))
    }

    private static func socketAddress(_ device: bdaddr_t, type: UInt8) -> sockaddr_l2 {
        var address = sockaddr_l2()
        address.l2_family = sa_family_t(AF_BLUETOOTH)
        address.l2_bdaddr = device
        address.l2_cid = attChannel.littleEndian
        address.l2_bdaddr_type = type
        return address
    }

    private static func withSocketAddress(
        _ address: inout sockaddr_l2, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32
    ) -> Int32 {
        withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_l2>.size)) }
        }
    }

    /// 0 once connected, else the connect's errno (ETIMEDOUT when `timeout` passed first).
    private static func waitUntilConnected(_ fd: Int32, timeout: Duration) async -> Int32 {
        let milliseconds = Int32(
            clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                var ready: Int32
                repeat { ready = poll(&entry, 1, milliseconds) } while ready < 0 && errno == EINTR
                guard ready > 0 else {
                    continuation.resume(returning: ready == 0 ? ETIMEDOUT : errno)
                    return
                }
                var error: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                let status = getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
                continuation.resume(returning: status == 0 ? error : errno)
            }
        }
    }

    /// The errnos that mean "no Bluetooth here" become `BLEUnavailable`'s cases and fixes; the
    /// others keep their call and errno.
    private static func unavailable(_ code: Int32, address: String, call: String) -> L2CAPConnectError {
        switch code {
        case EAFNOSUPPORT, EPROTONOSUPPORT, ENODEV, ENETDOWN, EPERM, EACCES:
            let missing = LinuxCapability.missing(fromProcessStatus: processStatus()) ?? []
            return .unavailable(
                .classify(errno: code, during: .openSocket, adapter: "the default adapter", missing: missing))
        default:
            return .failed(address: address, call: call, errno: code, text: String(cString: strerror(code)))
        }
    }

    private static func processStatus() -> String {
        (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    }
}
