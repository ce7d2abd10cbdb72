import BLELink
import DeviceSimulator
import Testing
import YoullTestSupport

/// Real parts: the gateway's GATTClient and the simulated device's GATT server on the two ends of
/// a socketpair(AF_UNIX, SOCK_SEQPACKET).
@Suite("GATT client against the simulated Tuya GATT server")
struct SimulatedGATTTests {
    /// Values the server handed to `onWrite`, as a stream a test can await.
    final class Writes: Sendable {
        let stream: AsyncStream<[UInt8]>
        let sink: AsyncStream<[UInt8]>.Continuation
        init() { (stream, sink) = AsyncStream.makeStream() }
    }

    struct Link {
        let client: GATTClient
        let server: SimulatedGATTServer
        let writes: Writes
    }

    static func link(_ layout: TuyaGATTLayout?, clock: any Clock<Duration> = ContinuousClock()) throws -> Link {
        let (near, far) = try SocketChannel.pair()
        let writes = Writes()
        let server = SimulatedGATTServer(channel: far, layout: layout) { writes.sink.yield($0) }
        return Link(client: GATTClient.connect(over: near, clock: clock), server: server, writes: writes)
    }

    @Test(
        "discover, enable notifications, write without response and notify work for both layouts",
        arguments: TuyaGATTLayout.allCases)
    func fullExchange(layout: TuyaGATTLayout) async throws {
        let link = try Self.link(layout)
        let found = try await link.client.discoverTuyaService()
        #expect(found.layout == layout)
        #expect(found.service.uuid == layout.serviceUUID)
        let attributes = await link.server.attributes
        let handle = { (type: BluetoothUUID) in attributes.first { $0.type == type }?.handle }
        #expect(found.write.valueHandle == handle(layout.writeCharacteristic))
        #expect(found.notify.valueHandle == handle(layout.notifyCharacteristic))
        #expect(found.configurationHandle == found.notify.valueHandle + 1)
        #expect(found.service.endHandle == attributes.last?.handle)

        #expect(try await link.server.notify([0xEE]) == false, "a device does not notify before the CCCD is written")
        try await link.client.enableNotifications()
        #expect(await link.server.notificationsEnabled)

        let packet: [UInt8] = [0x00, 0x2C, 0x20] + Array(repeating: 0x5A, count: 17)
        try await link.client.writeWithoutResponse(packet)
        var writes = link.writes.stream.makeAsyncIterator()
        #expect(await writes.next() == packet)

        #expect(try await link.server.notify([0x01, 0x02, 0x03]))
        var notifications = link.client.notifications.makeAsyncIterator()
        #expect(
            await notifications.next() == [0x01, 0x02, 0x03], "the first notification is the one sent after enabling")
        await link.client.close()
    }

    @Test("a device without a Tuya service is reported with the services it has")
    func noTuyaService() async throws {
        let link = try Self.link(nil)
        do {
            _ = try await link.client.discoverTuyaService()
            Issue.record("found a Tuya service")
        } catch {
            #expect(error == .tuyaServiceNotFound(found: [BluetoothUUID(0x1800), BluetoothUUID(0x1801)]))
            #expect(error.description.contains("0x1800, 0x1801"))
        }
        await link.client.close()
    }

    @Test("a silent device times out after 30 s on the clock, with no real waiting")
    func silentServer() async throws {
        let clock = ManualClock()
        let link = try Self.link(.a201, clock: clock)
        await link.server.misbehave(.silent)
        let discovery = Task { try await link.client.discoverTuyaService() }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(30))
        await #expect(
            throws: GATTError.link(.transactionTimeout(request: .readByGroupTypeRequest, after: .seconds(30)))
        ) { try await discovery.value }
    }

    @Test("the device dropping the link ends notifications and fails the next call as disconnected")
    func droppedLink() async throws {
        let link = try Self.link(.fd50)
        _ = try await link.client.discoverTuyaService()
        await link.server.dropLink()
        var notifications = link.client.notifications.makeAsyncIterator()
        #expect(await notifications.next() == nil)
        await #expect(throws: GATTError.link(.disconnected(reason: "the device closed the link"))) {
            try await link.client.enableNotifications()
        }
    }

    @Test("garbage PDUs from the device are counted and discovery still succeeds")
    func garbagePDUs() async throws {
        let link = try Self.link(.a201)
        try await link.server.send(raw: [0xFF, 0x00, 0x01])  // an unknown command
        try await link.server.send(raw: [0x1B, 0x01])  // a truncated notification
        try await link.server.send(raw: [0x3F])  // an unknown request (the client answers Request Not Supported)
        let found = try await link.client.discoverTuyaService()
        #expect(found.layout == .a201)
        #expect(await link.client.ignoredPDUCount == 3)
        await link.client.close()
    }

    @Test("malformed answers fail discovery with a typed error naming the request")
    func garbageResponses() async throws {
        let link = try Self.link(.a201)
        await link.server.misbehave(.garbageResponses)
        await #expect(
            throws: GATTError.link(
                .malformedResponse(
                    request: .readByGroupTypeRequest,
                    .invalidEntryLength(.readByGroupTypeResponse, length: 0, minimum: 4)))
        ) { _ = try await link.client.discoverTuyaService() }
        await link.client.close()
    }

    @Test("writes before discovery, and writes over MTU − 3 bytes, are refused")
    func writeLimits() async throws {
        let link = try Self.link(.fd50)
        await #expect(throws: GATTError.notDiscovered) { try await link.client.writeWithoutResponse([0x01]) }
        _ = try await link.client.discoverTuyaService()
        await #expect(throws: GATTError.valueTooLong(length: 21, maximum: 20)) {
            try await link.client.writeWithoutResponse(Array(repeating: 0, count: 21))
        }
        try await link.client.write([0x01])
        var writes = link.writes.stream.makeAsyncIterator()
        #expect(await writes.next() == [0x01])
        await link.client.close()
    }
}

/// Pure: the simulated server's answers, byte for byte, against what the ATT spec requires.
@Suite("Simulated GATT database answers like a real ATT server")
struct SimulatedGATTDatabaseTests {
    @Test(
        "error answers",
        arguments: [
            // Read By Group Type for characteristics: Unsupported Group Type at the start handle.
            ([0x10, 0x01, 0x00, 0xFF, 0xFF, 0x03, 0x28], [0x01, 0x10, 0x01, 0x00, 0x10]),
            // Start handle 0 and start > end: Invalid Handle.
            ([0x08, 0x00, 0x00, 0xFF, 0xFF, 0x03, 0x28], [0x01, 0x08, 0x00, 0x00, 0x01]),
            ([0x04, 0x05, 0x00, 0x04, 0x00], [0x01, 0x04, 0x05, 0x00, 0x01]),
            // Past the last attribute: Attribute Not Found.
            ([0x10, 0x10, 0x00, 0xFF, 0xFF, 0x00, 0x28], [0x01, 0x10, 0x10, 0x00, 0x0A]),
            // Read Request is not implemented: Request Not Supported, handle 0.
            ([0x0A, 0x03, 0x00], [0x01, 0x0A, 0x00, 0x00, 0x06]),
            // A malformed Find Information: Invalid PDU.
            ([0x04, 0x01, 0x00], [0x01, 0x04, 0x00, 0x00, 0x04]),
            // Writing the device name: Write Not Permitted; a 3-byte CCCD: Invalid Attribute Value Length.
            ([0x12, 0x03, 0x00, 0x41], [0x01, 0x12, 0x03, 0x00, 0x03]),
            ([0x12, 0x0D, 0x00, 0x01, 0x00, 0x00], [0x01, 0x12, 0x0D, 0x00, 0x0D]),
            ([0x12, 0x40, 0x00, 0x01, 0x00], [0x01, 0x12, 0x40, 0x00, 0x01]),
            // Reading the write-only Tuya characteristic by type: Read Not Permitted at its handle.
            ([0x08, 0x01, 0x00, 0xFF, 0xFF, 0x11, 0x2B], [0x01, 0x08, 0x0F, 0x00, 0x02]),
        ] as [([UInt8], [UInt8])])
    func errors(request: [UInt8], expected: [UInt8]) {
        var database = SimulatedGATTDatabase(layout: .a201)
        #expect(database.handle(request).response == expected)
    }

    @Test("commands, confirmations and unknown commands get no answer; Write Commands elsewhere change nothing")
    func silentCases() {
        var database = SimulatedGATTDatabase(layout: .a201)
        #expect(database.handle([0x7F, 0x01]) == .init())
        #expect(database.handle([0x1E]) == .init())
        #expect(database.handle([0x52, 0x0D, 0x00, 0x01, 0x00]) == .init())
        #expect(!database.notificationsEnabled, "the CCCD is written with Write Request only")
        #expect(database.handle([0x52, 0x0F, 0x00, 0x09]).written == [0x09])
    }

    @Test("service discovery answers three 16-bit services per 23-byte response with their end handles")
    func services() throws {
        var database = SimulatedGATTDatabase(layout: .a201)
        let response = try ATTReadByGroupTypeResponse(
            bytes: try #require(database.handle([0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28]).response))
        #expect(response.entries.map(\.handle) == [0x0001, 0x0006, 0x000A])
        #expect(response.entries.map(\.endGroupHandle) == [0x0005, 0x0009, 0x000F])
    }

    @Test("one 128-bit declaration fits a response at MTU 23, and 128-bit types are not mixed with 16-bit ones")
    func longEntries() throws {
        var database = SimulatedGATTDatabase(layout: .fd50)
        let characteristics = try ATTReadByTypeResponse(
            bytes: try #require(database.handle([0x08, 0x0B, 0x00, 0x11, 0x00, 0x03, 0x28]).response))
        #expect(characteristics.entries.count == 1)
        #expect(characteristics.entries[0].value.count == 19)
        let information = try ATTFindInformationResponse(
            bytes: try #require(database.handle([0x04, 0x0C, 0x00, 0x11, 0x00]).response))
        #expect(information.uses128BitUUIDs)
        #expect(information.entries.map(\.handle) == [0x000C])
    }
}
