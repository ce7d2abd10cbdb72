import BLELink
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Pure: which case each errno becomes, and that every message names the case and its fix.
@Suite("BLE availability: errno to cause")
struct BLEUnavailableTests {
    @Test("no Bluetooth in the kernel (EAFNOSUPPORT) says so and names CONFIG_BT")
    func kernelWithoutBluetooth() {
        let error = BLEUnavailable.classify(errno: EAFNOSUPPORT, during: .openSocket, adapter: "hci0")
        #expect(error == .kernelWithoutBluetooth(reason: String(cString: strerror(EAFNOSUPPORT))))
        #expect(
            error.description.hasPrefix(
                "the kernel has no Bluetooth support (socket(AF_BLUETOOTH) failed: \(String(cString: strerror(EAFNOSUPPORT)))); "
                    + "BLE needs a kernel with CONFIG_BT and a Bluetooth adapter"))
    }

    @Test("a kernel with Bluetooth but without HCI sockets (EPROTONOSUPPORT) is a kernel problem too")
    func protocolMissing() {
        let error = BLEUnavailable.classify(errno: EPROTONOSUPPORT, during: .openSocket, adapter: "hci0")
        guard case .kernelWithoutBluetooth = error else {
            Issue.record("got \(error)")
            return
        }
    }

    @Test("ENODEV names the missing adapter and where adapters are listed")
    func noAdapter() {
        let error = BLEUnavailable.classify(errno: ENODEV, during: .readAdapter, adapter: "hci2")
        #expect(error == .noAdapter("hci2"))
        #expect(error.description.hasPrefix("no Bluetooth adapter hci2: "))
        #expect(error.description.contains("/sys/class/bluetooth"))
        #expect(error.description.contains("ble.enabled: off"))
    }

    @Test("ENETDOWN is an adapter that is powered off, with the command that powers it on")
    func adapterDown() {
        let error = BLEUnavailable.classify(errno: ENETDOWN, during: .readAdapter, adapter: "hci0")
        #expect(error == .adapterDown("hci0"))
        #expect(error.description.contains("hci0 is powered off"))
        #expect(error.description.contains("bluetoothctl power on"))
        #expect(error.description.contains("rfkill unblock bluetooth"))
    }

    @Test(
        "EPERM and EACCES are permission problems whose fix names the systemd setting and the setcap line",
        arguments: [EPERM, EACCES])
    func permissionDenied(code: Int32) {
        let error = BLEUnavailable.classify(errno: code, during: .openSocket, adapter: "hci0", missing: [.netRaw])
        #expect(error == .permissionDenied(adapter: "hci0", missing: [.netRaw]))
        #expect(
            error.description
                == "permission denied opening hci0 (this process lacks CAP_NET_RAW): run the daemon with CAP_NET_RAW "
                + "and CAP_NET_ADMIN (systemd: AmbientCapabilities=CAP_NET_RAW CAP_NET_ADMIN; by hand: "
                + "sudo setcap cap_net_raw,cap_net_admin+eip $(command -v youll-devices))")
    }

    @Test("a permission error with unknown capabilities does not claim which one is missing")
    func permissionDeniedUnknown() {
        let error = BLEUnavailable.classify(errno: EPERM, during: .openSocket, adapter: "hci0")
        #expect(error.description.hasPrefix("permission denied opening hci0: run the daemon with CAP_NET_RAW"))
    }

    @Test("any other errno keeps its number, the failing call and the adapter")
    func other() {
        let error = BLEUnavailable.classify(errno: EMFILE, during: .openSocket, adapter: "hci0")
        #expect(
            error
                == .other(
                    errno: EMFILE,
                    text: "socket(AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI) for hci0 failed: "
                        + String(cString: strerror(EMFILE))))
        #expect(error.description.contains("errno \(EMFILE)"))
    }
}

@Suite("BLE availability: adapter verdict")
struct BluetoothAssessmentTests {
    @Test("an adapter that is down is reported before missing capabilities")
    func downFirst() {
        #expect(throws: BLEUnavailable.adapterDown("hci0")) {
            try BluetoothAvailability.assess(adapter: "hci0", isUp: false, missing: [.netRaw])
        }
    }

    @Test("an up adapter without CAP_NET_ADMIN is a permission problem naming that capability")
    func missingAdmin() {
        #expect(throws: BLEUnavailable.permissionDenied(adapter: "hci1", missing: [.netAdmin])) {
            try BluetoothAvailability.assess(adapter: "hci1", isUp: true, missing: [.netAdmin])
        }
    }

    @Test("an up adapter with both capabilities, or with capabilities unknown, is usable")
    func usable() {
        #expect(throws: Never.self) { try BluetoothAvailability.assess(adapter: "hci0", isUp: true, missing: []) }
        #expect(throws: Never.self) { try BluetoothAvailability.assess(adapter: "hci0", isUp: true, missing: nil) }
    }

    @Test(
        "adapter names are hci and a number",
        arguments: [
            ("hci0", UInt16?(0)), ("hci12", 12), ("hci", nil), ("hci-1", nil), ("eth0", nil), ("hci99999", nil),
            ("hci٣", nil),
        ])
    func adapterNumbers(name: String, expected: UInt16?) {
        #expect(BluetoothAvailability.adapterNumber(name) == expected)
    }

    @Test("capabilities are read from the CapEff line of /proc/self/status")
    func capabilities() {
        let all = "Name:\tyoull\nCapInh:\t0000000000000000\nCapEff:\t000001ffffffffff\n"
        #expect(LinuxCapability.missing(fromProcessStatus: all) == [])
        let none = "CapEff:\t0000000000000000\n"
        #expect(LinuxCapability.missing(fromProcessStatus: none) == [.netRaw, .netAdmin])
        let rawOnly = "CapEff:\t0000000000002000\n"  // bit 13
        #expect(LinuxCapability.missing(fromProcessStatus: rawOnly) == [.netAdmin])
        #expect(LinuxCapability.missing(fromProcessStatus: "Name:\tx\n") == nil)
        #expect(LinuxCapability.missing(fromProcessStatus: "CapEff:\tzz\n") == nil)
    }
}

/// Real parts: this machine's kernel, through socket(AF_BLUETOOTH). The build machines have no
/// Bluetooth in the kernel (INTEROP.md); elsewhere the test is skipped, as the answer depends
/// on the hardware.
@Suite("BLE availability: the real probe")
struct BluetoothProbeTests {
    static let kernelHasBluetooth = FileManager.default.fileExists(atPath: "/sys/class/bluetooth")

    @Test(
        "on a kernel without Bluetooth the probe says so and names the fix",
        .enabled(if: !kernelHasBluetooth, "this kernel has Bluetooth"))
    func kernelWithoutBluetooth() {
        #expect(throws: BLEUnavailable.kernelWithoutBluetooth(reason: String(cString: strerror(EAFNOSUPPORT)))) {
            try BluetoothAvailability.probe(adapter: "hci0")
        }
        do {
            _ = try BluetoothAvailability.probe(adapter: "hci0")
        } catch {
            #expect(error.description.contains("the kernel has no Bluetooth support"))
            #expect(error.description.contains("CONFIG_BT"))
        }
    }
}
