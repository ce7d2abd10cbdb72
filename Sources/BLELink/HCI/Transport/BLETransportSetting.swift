/// How the gateway reaches its Bluetooth controller: the value of `ble.transport`.
///
/// - `bluez` (the default): BlueZ kernel sockets on `ble.adapter`.
/// - `hci-user:hci0`: this process's own HCI host on the kernel's user channel of an adapter
///   (exclusive: the adapter must be down and bluetoothd must leave it alone; needs CAP_NET_ADMIN).
/// - `h4:/dev/ttyAMA0[,115200]`: own HCI host on a UART-attached controller (H4, RTS/CTS).
/// - `h4-tcp:HOST:PORT`: own HCI host on an H4 stream over TCP (emulators, Bumble).
/// - `h4-unix:/path/to/socket`: the same over a UNIX stream socket.
public enum BLETransportSetting: Hashable, Sendable, CustomStringConvertible {
    case bluez
    case hciUser(adapter: String)
    case h4Serial(path: String, baudRate: Int)
    case h4TCP(host: String, port: Int)
    case h4Unix(path: String)

    public static let defaultBaudRate = 115_200
    /// The rates termios can set on Linux.
    public static let baudRates = [
        9_600, 19_200, 38_400, 57_600, 115_200, 230_400, 460_800, 500_000, 576_000, 921_600, 1_000_000, 1_152_000,
        1_500_000, 2_000_000, 2_500_000, 3_000_000, 3_500_000, 4_000_000,
    ]

    /// The forms, for error messages.
    public static let forms = "bluez | hci-user:hci0 | h4:/dev/ttyAMA0[,115200] | h4-tcp:HOST:PORT | h4-unix:PATH"

    /// Parses a `ble.transport` value; the error names what is wrong with it.
    public init(parsing text: String) throws(BLETransportSettingError) {
        let value = text.trimmingSpaces
        guard let colon = value.firstIndex(of: ":") else {
            guard value == "bluez" else { throw .unknownKind(String(value.prefix(40))) }
            self = .bluez
            return
        }
        let kind = String(value[..<colon])
        let rest = String(value[value.index(after: colon)...])
        switch kind {
        case "hci-user": self = try Self.hciUser(rest)
        case "h4": self = try Self.serial(rest)
        case "h4-tcp": self = try Self.tcp(rest)
        case "h4-unix":
            guard rest.hasPrefix("/") else { throw .invalid(kind: kind, reason: "the socket path must be absolute") }
            self = .h4Unix(path: rest)
        default: throw .unknownKind(String(kind.prefix(40)))
        }
    }

    /// Whether the gateway runs its own HCI host (everything but `bluez`).
    public var usesOwnHost: Bool { self != .bluez }

    public var description: String {
        switch self {
        case .bluez: "bluez"
        case .hciUser(let adapter): "hci-user:\(adapter)"
        case .h4Serial(let path, let baudRate): "h4:\(path),\(baudRate)"
        case .h4TCP(let host, let port): "h4-tcp:\(host.contains(":") ? "[\(host)]" : host):\(port)"
        case .h4Unix(let path): "h4-unix:\(path)"
        }
    }

    private static func hciUser(_ adapter: String) throws(BLETransportSettingError) -> BLETransportSetting {
        guard BluetoothAvailability.adapterNumber(adapter) != nil else {
            throw .invalid(kind: "hci-user", reason: "'\(adapter.prefix(20))' is not an adapter name like hci0")
        }
        return .hciUser(adapter: adapter)
    }

    private static func serial(_ text: String) throws(BLETransportSettingError) -> BLETransportSetting {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count <= 2, let path = parts.first.map(String.init), path.hasPrefix("/") else {
            throw .invalid(kind: "h4", reason: "expected an absolute device path and an optional baud rate")
        }
        guard parts.count == 2 else { return .h4Serial(path: path, baudRate: defaultBaudRate) }
        guard let rate = Int(parts[1]), baudRates.contains(rate) else {
            throw .invalid(
                kind: "h4",
                reason:
                    "baud rate '\(parts[1].prefix(12))' is not one of \(baudRates.map(String.init).joined(separator: ", "))"
            )
        }
        return .h4Serial(path: path, baudRate: rate)
    }

    private static func tcp(_ text: String) throws(BLETransportSettingError) -> BLETransportSetting {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            guard after.hasPrefix(":") else { throw .invalid(kind: "h4-tcp", reason: "expected [HOST]:PORT") }
            portText = after.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else {
                throw .invalid(kind: "h4-tcp", reason: "expected HOST:PORT (write an IPv6 address as [::1]:PORT)")
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty else { throw .invalid(kind: "h4-tcp", reason: "the host is empty") }
        guard let port = Int(portText), (1...65_535).contains(port) else {
            throw .invalid(kind: "h4-tcp", reason: "port '\(portText.prefix(12))' is not a number from 1 to 65535")
        }
        return .h4TCP(host: String(host), port: port)
    }
}

/// Why a `ble.transport` value was refused.
public enum BLETransportSettingError: Error, Hashable, Sendable, CustomStringConvertible {
    case unknownKind(String)
    case invalid(kind: String, reason: String)

    public var description: String {
        switch self {
        case .unknownKind(let kind):
            "unknown BLE transport '\(kind)'; expected one of: \(BLETransportSetting.forms)"
        case .invalid(let kind, let reason):
            "\(kind): \(reason)"
        }
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var text = Substring(self)
        while text.first?.isWhitespace == true { text.removeFirst() }
        while text.last?.isWhitespace == true { text.removeLast() }
        return String(text)
    }
}
