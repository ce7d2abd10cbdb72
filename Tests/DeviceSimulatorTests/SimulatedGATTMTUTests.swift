import BLELink
import DeviceSimulator
import Testing
import YoullTestSupport

/// Real parts: the gateway's GATTClient offering 247 (as the Tuya transport does) and the
/// simulated device's GATT server on the two ends of a socketpair(AF_UNIX, SOCK_SEQPACKET).
@Suite("ATT MTU exchange against the simulated GATT server")
struct SimulatedGATTMTUTests {
    @Test(
        "the MTU in force is the smaller offer, 23 when the server refuses; values up to MTU − 3 cross, longer ones are refused",
        arguments: [(UInt16?.some(247), UInt16(247)), (185, 185), (517, 247), (23, 23), (nil, 23)])
    func exchange(serverMTU: UInt16?, agreed: UInt16) async throws {
        let (near, far) = try SocketChannel.pair()
        let writes = SimulatedGATTTests.Writes()
        let server = SimulatedGATTServer(channel: far, layout: .fd50, serverMTU: serverMTU) {
            writes.sink.yield($0)
        }
        let client = GATTClient.connect(over: near, preferredMTU: 247)
        #expect(client.maximumValueLength == 20, "20 before the exchange")
        #expect(try await client.exchangeMTU() == agreed)
        #expect(await server.mtu == agreed, "both ends use the same MTU")
        let longest = Int(agreed) - 3
        #expect(client.maximumValueLength == longest)

        _ = try await client.discoverTuyaService()
        try await client.enableNotifications()
        let value = (0..<longest).map { UInt8(truncatingIfNeeded: $0) }
        try client.enqueueWithoutResponse(value)
        var written = writes.stream.makeAsyncIterator()
        #expect(await written.next() == value)
        #expect(throws: GATTError.valueTooLong(length: longest + 1, maximum: longest)) {
            try client.enqueueWithoutResponse(value + [0])
        }

        #expect(try server.notifyNow(value))
        var notifications = client.notifications.makeAsyncIterator()
        #expect(await notifications.next() == value)
        await client.close()
    }

    @Test("a Write Command longer than the MTU in force is ignored, as ATT requires")
    func overlongCommand() {
        var database = SimulatedGATTDatabase(layout: .fd50, serverMTU: 247)
        let handle = database.writeHandle
        let long = ATTWriteCommand(handle: handle, value: Array(repeating: 0xAB, count: 21)).encode()
        #expect(database.handle(long) == .init(), "24 bytes at MTU 23")
        #expect(database.handle(ATTExchangeMTURequest(clientMTU: 100).encode()).response == [0x03, 0xF7, 0x00])
        #expect(database.mtu == 100)
        #expect(database.handle(long).written == Array(repeating: 0xAB, count: 21))
    }
}
