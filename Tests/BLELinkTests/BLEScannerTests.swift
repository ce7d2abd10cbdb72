import BLELink
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Real parts: this machine's kernel, through socket(AF_BLUETOOTH). The build machines have no
/// Bluetooth in the kernel (INTEROP.md); elsewhere the test is skipped.
@Suite("BLE scanner on this machine")
struct BLEScannerTests {
    @Test(
        "starting a scan on a kernel without Bluetooth fails with kernelWithoutBluetooth and its fix",
        .enabled(if: !BluetoothProbeTests.kernelHasBluetooth, "this kernel has Bluetooth"))
    func kernelWithoutBluetooth() async {
        let scanner = BLEScanner(adapter: "hci0")
        do {
            _ = try await scanner.start()
            Issue.record("a scan started without Bluetooth in the kernel")
        } catch {
            let reason = String(cString: strerror(EAFNOSUPPORT))
            #expect(error == .kernelWithoutBluetooth(reason: reason))
            #expect(
                error.description
                    == "the kernel has no Bluetooth support (socket(AF_BLUETOOTH) failed: \(reason)); BLE needs a "
                    + "kernel with CONFIG_BT and a Bluetooth adapter (if Bluetooth is a module: sudo modprobe bluetooth)"
            )
        }
        await scanner.stop()
        #expect(await scanner.devices.isEmpty)
    }
}
