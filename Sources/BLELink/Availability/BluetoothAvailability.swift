import CBluetooth
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A Bluetooth adapter that is present, up, and usable by this process.
public struct BluetoothAdapter: Hashable, Sendable {
    /// BlueZ's name for it (`hci0`).
    public var name: String
    /// Its public address, `AA:BB:CC:11:22:33`.
    public var address: String

    public init(name: String, address: String) {
        self.name = name
        self.address = address
    }
}

/// Can this process use Bluetooth LE? Asked by `doctor` and by the daemon before it starts its
/// BLE links, so that the answer is one of `BLEUnavailable`'s cases with its fix instead of
/// a bare errno from deep inside a scan.
///
/// The system calls are few and kept here; what they mean is decided by pure functions
/// (`BLEUnavailable.classify`, `assess`, `LinuxCapability.missing`) that tests cover case by case.
public enum BluetoothAvailability {
    /// Opens a raw HCI socket, reads the adapter's device info, and checks that it is up and that
    /// this process has the capabilities raw HCI needs. Changes nothing on the adapter.
    /// - Parameter adapter: a BlueZ adapter name, `hci` and a number.
    public static func probe(adapter: String = "hci0") throws(BLEUnavailable) -> BluetoothAdapter {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI)
        guard fd >= 0 else {
            throw failure(errno, during: .openSocket, adapter: adapter)
        }
        defer { close(fd) }
        guard let number = adapterNumber(adapter) else { throw .noAdapter(adapter) }
        var info = hci_dev_info()
        info.dev_id = number
        guard youll_hci_get_dev_info(fd, &info) == 0 else {
            throw failure(errno, during: .readAdapter, adapter: adapter)
        }
        try assess(
            adapter: adapter, isUp: info.flags & (1 << UInt32(HCI_UP)) != 0,
            missing: LinuxCapability.missing(fromProcessStatus: processStatus()))
        return BluetoothAdapter(name: adapter, address: address(info.bdaddr))
    }

    /// The verdict on an adapter that exists: it must be up, and none of the capabilities BLE
    /// needs may be missing (`missing` nil: unknown, so not held against it).
    public static func assess(adapter: String, isUp: Bool, missing: [LinuxCapability]?) throws(BLEUnavailable) {
        guard isUp else { throw .adapterDown(adapter) }
        if let missing, !missing.isEmpty { throw .permissionDenied(adapter: adapter, missing: missing) }
    }

    /// `hci0` → 0; nil for anything that is not `hci` and a number BlueZ could have assigned.
    public static func adapterNumber(_ name: String) -> UInt16? {
        guard name.hasPrefix("hci") else { return nil }
        let digits = name.dropFirst(3)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return UInt16(digits)
    }

    /// The `BLEUnavailable` case for a failed system call, with the capabilities this process lacks.
    static func failure(_ code: Int32, during step: BLEUnavailable.Step, adapter: String) -> BLEUnavailable {
        let missing = LinuxCapability.missing(fromProcessStatus: processStatus()) ?? []
        return .classify(errno: code, during: step, adapter: adapter, missing: missing)
    }

    private static func processStatus() -> String {
        (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    }

    private static func address(_ bdaddr: bdaddr_t) -> String {
        var copy = bdaddr
        var text = [CChar](repeating: 0, count: 18)
        _ = ba2str(&copy, &text)
        return text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
