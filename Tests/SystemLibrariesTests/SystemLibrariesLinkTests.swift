import CBluetooth
import CMosquitto
import Testing

/// Proves the system-library module maps compile and link against the Debian packages.
@Suite("system libraries")
struct SystemLibrariesLinkTests {
    @Test("libmosquitto links and reports a 2.x version")
    func mosquittoLinks() {
        var major: Int32 = 0
        var minor: Int32 = 0
        var revision: Int32 = 0
        _ = mosquitto_lib_version(&major, &minor, &revision)
        #expect(major == 2)
    }

    @Test("libbluetooth links: a Bluetooth address round-trips through str2ba and ba2str")
    func bluetoothLinks() {
        var address = bdaddr_t()
        #expect(str2ba("AA:BB:CC:11:22:33", &address) == 0)
        var text = [CChar](repeating: 0, count: 18)
        _ = ba2str(&address, &text)
        let decoded = text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        #expect(decoded == "AA:BB:CC:11:22:33")
        #expect(youll_cmd_opcode_pack(0x08, 0x000C) == 0x200C)
    }
}
