import BLELink
import Testing
import YoullTestSupport

/// Real parts: a seqpacket socketpair; the test plays the device on the far end byte by byte,
/// against a bearer that offers 247 as the Tuya transport does (Core spec Vol 3 Part F §3.4.2:
/// ATT_MTU = min(client Rx MTU, server Rx MTU), never below 23).
@Suite("ATT MTU exchange")
struct ATTMTUExchangeTests {
    let bearer: ATTBearer
    let device: SocketChannel

    init() throws {
        let (near, far) = try SocketChannel.pair()
        bearer = ATTBearer(channel: near, clock: ManualClock(), preferredMTU: 247)
        device = far
    }

    /// The MTU agreed when the device answers `answer` to the bearer's request.
    private func exchange(answer: [UInt8]) async throws -> UInt16 {
        let mtu = Task { try await bearer.exchangeMTU() }
        #expect(try await device.receive() == [0x02, 0xF7, 0x00], "the request offers 247, little-endian")
        try await device.send(answer)
        return try await mtu.value
    }

    @Test(
        "the MTU in force is the smaller offer, never below 23",
        arguments: [(UInt16(517), UInt16(247)), (247, 247), (185, 185), (23, 23), (20, 23), (0, 23)])
    func smallerOffer(server: UInt16, agreed: UInt16) async throws {
        let answer: [UInt8] = [0x03, UInt8(server & 0xFF), UInt8(server >> 8)]
        #expect(try await exchange(answer: answer) == agreed)
        #expect(await bearer.mtu == agreed)
        #expect(bearer.negotiatedMTU == agreed)
        await bearer.close()
    }

    @Test("a device that refuses the exchange (Request Not Supported) leaves 23, and the link keeps working")
    func refused() async throws {
        #expect(try await exchange(answer: [0x01, 0x02, 0x00, 0x00, 0x06]) == 23)
        #expect(bearer.negotiatedMTU == 23)
        let write = Task { try await bearer.request(ATTWriteRequest(handle: 0x0010, value: [0x01, 0x00])) }
        #expect(try await device.receive() == [0x12, 0x10, 0x00, 0x01, 0x00])
        try await device.send([0x13])
        _ = try await write.value
        await bearer.close()
    }

    @Test("a device that answers with some other response fails the exchange with a typed error")
    func wrongAnswer() async throws {
        await #expect(throws: ATTError.unexpectedResponse(request: .exchangeMTURequest, received: .writeResponse)) {
            _ = try await exchange(answer: [0x13])
        }
        #expect(bearer.negotiatedMTU == 23)
        await bearer.close()
    }

    @Test("a device asking first is told 247 and the smaller MTU is in force")
    func deviceAsks() async throws {
        try await device.send([0x02, 0xB9, 0x00])
        #expect(try await device.receive() == [0x03, 0xF7, 0x00])
        #expect(await bearer.mtu == 185)
        await bearer.close()
    }
}
