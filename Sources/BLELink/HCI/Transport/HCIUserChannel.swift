import CBluetooth
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Opens an adapter's HCI user channel (`hci-user:hci0`): a raw HCI socket bound with
/// `HCI_CHANNEL_USER`, which hands this process the whole controller, H4 packet indicators
/// included, with no BlueZ daemon in between. The kernel grants it only to a process with
/// CAP_NET_ADMIN, and only while the adapter is down and no one else holds it.
public enum HCIUserChannel {
    public static func open(adapter: String) throws(HCIHostError) -> DescriptorByteStream {
        let name = BLETransportSetting.hciUser(adapter: adapter).description
        guard let number = BluetoothAvailability.adapterNumber(adapter) else {
            throw .transport("\(name): '\(adapter)' is not an adapter name like hci0")
        }
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI)
        guard fd >= 0 else { throw .transport(failure(errno, adapter: adapter, call: "socket", missing: missing())) }
        var address = sockaddr_hci()
        address.hci_family = sa_family_t(AF_BLUETOOTH)
        address.hci_dev = number
        address.hci_channel = UInt16(HCI_CHANNEL_USER)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_hci>.size))
            }
        }
        guard status == 0 else {
            let code = errno
            close(fd)
            throw .transport(failure(code, adapter: adapter, call: "bind", missing: missing()))
        }
        return try DescriptorByteStream(adopting: fd, name: name)
    }

    /// The one line `doctor` and the daemon print for a failed socket or bind, naming the fix.
    /// Pure, so every case is tested although this machine can produce only the first.
    public static func failure(_ code: Int32, adapter: String, call: String, missing: [LinuxCapability]) -> String {
        let name = "hci-user:\(adapter)"
        switch code {
        case EAFNOSUPPORT, EPROTONOSUPPORT:
            return "\(name): the kernel has no Bluetooth support (socket(AF_BLUETOOTH) failed: "
                + "\(String(cString: strerror(code)))); use a kernel with CONFIG_BT, or an H4 transport "
                + "(h4:/dev/ttyAMA0 or h4-tcp:HOST:PORT)"
        case ENODEV:
            return "\(name): no such adapter \(adapter) (the adapters are listed in /sys/class/bluetooth)"
        case EBUSY:
            return "\(name): \(adapter) is busy (up, or being set up by bluetoothd): stop bluetoothd "
                + "(sudo systemctl stop bluetooth) and take the adapter down (sudo btmgmt -i \(adapter) power off)"
        case EUSERS, EALREADY:
            return "\(name): another program already holds \(adapter)'s user channel"
        case EPERM, EACCES:
            let lacking = missing.contains(.netAdmin) ? " (this process lacks CAP_NET_ADMIN)" : ""
            return "\(name): permission denied\(lacking): the user channel needs CAP_NET_ADMIN (systemd: "
                + "AmbientCapabilities=CAP_NET_ADMIN; by hand: sudo setcap cap_net_admin+eip $(command -v youll-devices))"
        default:
            return "\(name): \(call) failed: \(String(cString: strerror(code))) (errno \(code))"
        }
    }

    private static func missing() -> [LinuxCapability] {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        return LinuxCapability.missing([.netAdmin], fromProcessStatus: status) ?? []
    }
}
