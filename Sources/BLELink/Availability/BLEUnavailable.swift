#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why Bluetooth LE cannot be used here, one case per fix. The four cases a user meets on
/// Linux (INTEROP.md): a kernel without Bluetooth, no adapter, an adapter that is powered off,
/// and a process without the capabilities raw HCI needs. `description` says which it is and
/// what to do, in one line.
public enum BLEUnavailable: Error, Hashable, Sendable, CustomStringConvertible {
    /// `socket(AF_BLUETOOTH)` failed with EAFNOSUPPORT: the kernel was built without Bluetooth
    /// (or its module cannot be loaded). `reason` is the system's wording of the error.
    case kernelWithoutBluetooth(reason: String)
    /// The kernel has Bluetooth but no adapter by this name (`hci0`).
    case noAdapter(String)
    /// The adapter exists but is not up (powered off, or blocked by rfkill).
    case adapterDown(String)
    /// The process may not use the adapter: raw HCI needs CAP_NET_RAW (and CAP_NET_ADMIN to
    /// bring the adapter up). `missing` lists the capabilities this process lacks, when known.
    case permissionDenied(adapter: String, missing: [LinuxCapability])
    /// Anything else, with the errno and what was being done.
    case other(errno: Int32, text: String)

    /// One line: what is wrong, then what to do.
    public var description: String {
        switch self {
        case .kernelWithoutBluetooth: "\(cause); \(fix)"
        default: "\(cause): \(fix)"
        }
    }

    /// What is wrong, without the fix (for `doctor`, which prints the fix on its own line).
    public var cause: String {
        switch self {
        case .kernelWithoutBluetooth(let reason):
            "the kernel has no Bluetooth support (socket(AF_BLUETOOTH) failed: \(reason))"
        case .noAdapter(let name):
            "no Bluetooth adapter \(name)"
        case .adapterDown(let name):
            "Bluetooth adapter \(name) is powered off"
        case .permissionDenied(let adapter, let missing):
            "permission denied opening \(adapter)"
                + (missing.isEmpty ? "" : " (this process lacks \(missing.map(\.name).joined(separator: " and ")))")
        case .other(let errno, let text):
            "Bluetooth is not usable: \(text) (errno \(errno))"
        }
    }

    /// What to do about it.
    public var fix: String {
        switch self {
        case .kernelWithoutBluetooth:
            "BLE needs a kernel with CONFIG_BT and a Bluetooth adapter (if Bluetooth is a module: sudo modprobe bluetooth)"
        case .noAdapter:
            "plug one in, or set ble.adapter to one listed in /sys/class/bluetooth (set ble.enabled: off to run "
                + "without BLE)"
        case .adapterDown:
            "power it on with `bluetoothctl power on` (if it is blocked: `sudo rfkill unblock bluetooth`)"
        case .permissionDenied:
            "run the daemon with CAP_NET_RAW and CAP_NET_ADMIN (systemd: AmbientCapabilities=CAP_NET_RAW "
                + "CAP_NET_ADMIN; by hand: sudo setcap cap_net_raw,cap_net_admin+eip $(command -v youll-devices))"
        case .other:
            "check that BlueZ works with `bluetoothctl show`"
        }
    }

    /// The step of the probe a system call failed in; it goes into `other`'s text.
    public enum Step: String, Hashable, Sendable {
        case openSocket = "socket(AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI)"
        case readAdapter = "ioctl(HCIGETDEVINFO)"
        case openAdapter = "hci_open_dev"
        case setScanFilter = "setsockopt(HCI_FILTER)"
        case setScanParameters = "LE Set Scan Parameters"
        case enableScan = "LE Set Scan Enable"
        case setExtendedScanParameters = "LE Set Extended Scan Parameters"
        case enableExtendedScan = "LE Set Extended Scan Enable"
    }

    /// Maps a failed system call's errno to the case a user can act on. Pure, so every case is
    /// tested here although this machine can produce only one of them.
    ///
    /// EAFNOSUPPORT (and EPROTONOSUPPORT, for a kernel with Bluetooth but no HCI sockets) →
    /// kernel; ENODEV → no adapter; ENETDOWN (BlueZ's own word for a down adapter) → down;
    /// EPERM/EACCES → permission, with the capabilities this process is missing when known.
    public static func classify(
        errno code: Int32, during step: Step, adapter: String, missing: [LinuxCapability] = []
    ) -> BLEUnavailable {
        switch code {
        case EAFNOSUPPORT, EPROTONOSUPPORT:
            .kernelWithoutBluetooth(reason: systemText(code))
        case ENODEV:
            .noAdapter(adapter)
        case ENETDOWN:
            .adapterDown(adapter)
        case EPERM, EACCES:
            .permissionDenied(adapter: adapter, missing: missing)
        default:
            .other(errno: code, text: "\(step.rawValue) for \(adapter) failed: \(systemText(code))")
        }
    }

    static func systemText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
