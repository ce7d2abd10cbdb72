import BLELink
import Testing
import YoullTestSupport

/// Real parts: a seqpacket socketpair; the test plays a hostile peripheral on the far end,
/// answering the gateway's discovery with handles at the very top of the 16-bit range
/// (Core spec Vol 3 Part G §4.4–4.7 layouts). Discovery must fail with a typed error, never
/// trap on handle arithmetic.
@Suite("GATT discovery against a hostile peripheral")
struct GATTDiscoveryHostileTests {
    /// A201 layout: service 0x1910, write 0x2B11 (write without response), notify 0x2B10.
    @Test("a notify characteristic whose value sits at handle 0xFFFF leaves no room for its CCCD: a typed error")
    func notifyValueAtTopHandle() async throws {
        let (near, far) = try SocketChannel.pair()
        let client = GATTClient.connect(over: near, clock: ManualClock())
        let discovery = Task { () -> Result<TuyaGATTService, GATTError> in
            do throws(GATTError) {
                return .success(try await client.discoverTuyaService())
            } catch {
                return .failure(error)
            }
        }
        // Primary services: one Tuya service over the whole range.
        #expect(try await far.receive()?.first == 0x10)
        try await far.send([0x11, 0x06, 0x01, 0x00, 0xFF, 0xFF, 0x10, 0x19])
        // Characteristics: write at 0x0002/0x0003, notify declared at 0xFFFE with its value at 0xFFFF.
        #expect(try await far.receive()?.first == 0x08)
        try await far.send([
            0x09, 0x07,
            0x02, 0x00, 0x04, 0x03, 0x00, 0x11, 0x2B,
            0xFE, 0xFF, 0x10, 0xFF, 0xFF, 0x10, 0x2B,
        ])
        // Asked on from 0xFFFF: nothing more.
        #expect(try await far.receive() == [0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0x03, 0x28])
        try await far.send([0x01, 0x08, 0xFF, 0xFF, 0x0A])
        let outcome = await discovery.value
        guard case .failure(let error) = outcome else {
            Issue.record("discovery succeeded with no CCCD to find: \(outcome)")
            return
        }
        #expect(error == .configurationDescriptorMissing(characteristic: BluetoothUUID(0x2B10)))
        await client.close()
    }
}
