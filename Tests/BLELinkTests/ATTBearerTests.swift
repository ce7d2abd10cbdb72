import BLELink
import Testing
import YoullTestSupport

/// Real parts: a seqpacket socketpair; the test plays the device on the far end byte by byte.
@Suite("ATT bearer")
struct ATTBearerTests {
    let clock = ManualClock()
    let bearer: ATTBearer
    let device: SocketChannel

    init() throws {
        let (near, far) = try SocketChannel.pair()
        bearer = ATTBearer(channel: near, clock: clock)
        device = far
    }

    @Test("a response is matched to its request, and the MTU is the smaller of the two")
    func exchangeMTU() async throws {
        let mtu = Task { try await bearer.exchangeMTU() }
        #expect(try await device.receive() == [0x02, 0x17, 0x00])
        try await device.send([0x03, 0xF7, 0x00])
        #expect(try await mtu.value == 23)
        await bearer.close()
    }

    @Test("an Error Response becomes a typed error naming request, handle and code")
    func errorResponse() async throws {
        let response = Task {
            try await bearer.request(
                ATTReadByGroupTypeRequest(startHandle: 0x0010, endHandle: 0xFFFF, groupType: .primaryService))
        }
        #expect(try await device.receive() == [0x10, 0x10, 0x00, 0xFF, 0xFF, 0x00, 0x28])
        try await device.send([0x01, 0x10, 0x10, 0x00, 0x0A])
        let expected = ATTError.errorResponse(
            request: .readByGroupTypeRequest, handle: 0x0010, code: .attributeNotFound)
        await #expect(throws: expected) { try await response.value }
        #expect(
            expected.description
                == "the device refused Read By Group Type Request (0x10) at handle 0x0010: Attribute Not Found (0x0a)")
        await bearer.close()
    }

    @Test("concurrent requests go out one at a time, each getting its own response")
    func oneAtATime() async throws {
        let first = Task { try await bearer.request(ATTFindInformationRequest(startHandle: 1, endHandle: 2)) }
        let second = Task { try await bearer.request(ATTFindInformationRequest(startHandle: 3, endHandle: 4)) }
        let one = try #require(try await device.receive())
        try await device.send([0x05, 0x01, one[1], 0x00, 0x00, 0x28])
        let two = try #require(try await device.receive())
        #expect(Set([one[1], two[1]]) == [1, 3])
        try await device.send([0x05, 0x01, two[1], 0x00, 0x03, 0x28])
        #expect(try await first.value.entries.map(\.handle) == [1])
        #expect(try await second.value.entries.map(\.handle) == [3])
        await bearer.close()
    }

    @Test("no answer in 30 s on the clock fails the request and closes the link; 29 s is still in time")
    func transactionTimeout() async throws {
        let inTime = Task { try await bearer.exchangeMTU() }
        _ = try await device.receive()
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(29))
        try await device.send([0x03, 0x17, 0x00])
        #expect(try await inTime.value == 23)

        let late = Task { try await bearer.exchangeMTU() }
        _ = try await device.receive()
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(30))
        await #expect(throws: ATTError.transactionTimeout(request: .exchangeMTURequest, after: .seconds(30))) {
            try await late.value
        }
        #expect(try await device.receive() == nil, "the bearer closed the link")
        do {
            _ = try await bearer.exchangeMTU()
            Issue.record("a request after a timeout must fail")
        } catch {
            #expect(error.description.contains("ATT allows no more PDUs after a timeout"))
        }
    }

    @Test("the device closing the link fails the outstanding request and ends notifications")
    func endOfFile() async throws {
        let response = Task { try await bearer.exchangeMTU() }
        _ = try await device.receive()
        await device.close()
        await #expect(throws: ATTError.disconnected(reason: "the device closed the link")) { try await response.value }
        var iterator = bearer.notifications.makeAsyncIterator()
        #expect(await iterator.next() == nil)
    }

    @Test("notifications and indications reach the stream; indications are confirmed")
    func notifications() async throws {
        try await device.send([0x1B, 0x0E, 0x00, 0x01, 0x02])
        try await device.send([0x1D, 0x08, 0x00, 0x03])
        var iterator = bearer.notifications.makeAsyncIterator()
        #expect(await iterator.next() == ATTHandleValueNotification(handle: 0x000E, value: [0x01, 0x02]))
        #expect(await iterator.next() == ATTHandleValueNotification(handle: 0x0008, value: [0x03]))
        #expect(try await device.receive() == [0x1E])
        await bearer.close()
    }

    @Test("the device's own requests are answered: MTU exchanged, anything else Request Not Supported")
    func deviceRequests() async throws {
        try await device.send([0x02, 0x00, 0x02])
        #expect(try await device.receive() == [0x03, 0x17, 0x00])
        try await device.send([0x08, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x2A])
        #expect(try await device.receive() == [0x01, 0x08, 0x00, 0x00, 0x06])
        await bearer.close()
    }

    @Test("garbage is counted and dropped, and the link keeps working")
    func garbage() async throws {
        try await device.send([0xFF, 0x01])  // an unknown command
        try await device.send([0x0B, 0x00])  // a Read Response nobody asked for
        try await device.send([0x1B, 0x01])  // a truncated notification
        try await device.send([0x3F])  // an unknown request: answered, and counted
        #expect(try await device.receive() == [0x01, 0x3F, 0x00, 0x00, 0x06])
        let mtu = Task { try await bearer.exchangeMTU() }
        _ = try await device.receive()
        try await device.send([0x03, 0x17, 0x00])
        #expect(try await mtu.value == 23)
        #expect(await bearer.ignoredPDUCount == 4)
        await bearer.close()
    }

    @Test("a response of the wrong kind or malformed ends that request with a typed error")
    func wrongResponses() async throws {
        let wrongKind = Task { try await bearer.exchangeMTU() }
        _ = try await device.receive()
        try await device.send([0x13])
        await #expect(throws: ATTError.unexpectedResponse(request: .exchangeMTURequest, received: .writeResponse)) {
            try await wrongKind.value
        }
        let malformed = Task { try await bearer.exchangeMTU() }
        _ = try await device.receive()
        try await device.send([0x03, 0x17])
        await #expect(
            throws: ATTError.malformedResponse(
                request: .exchangeMTURequest, .truncated(.exchangeMTUResponse, needed: 3, got: 2))
        ) { try await malformed.value }
        await bearer.close()
    }
}
