import LANLink
import Synchronization
import Testing
import YoullTestSupport

/// A LAN connection made on a link's event loop hands what the device sends to the link's
/// callbacks on that loop (no task, no stream between), as the device link reads it.
@Suite("A LAN connection on a link's event loop", .timeLimit(.minutes(1)))
struct LANConnectionDeliveryTests {
    @Test("every byte the device sent reaches the link in order, then the end, once")
    func bytesThenEnd() async throws {
        let address = LANTestAddress.unique()
        let sent = (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let rogue = try RogueLANPeer(ip: address) { _ in (sent, true) }
        defer { rogue.stop() }
        let loop = LANLoop.next()
        let connection = try await LANConnection.connect(host: address, port: 6668, timeout: .seconds(5), on: loop)
        defer { connection.close() }
        connection.write([1])
        let seen = Seen()
        let total: [UInt8] = await withCheckedContinuation { continuation in
            connection.deliver(
                on: loop, received: { bytes in seen.state.withLock { $0.bytes += bytes } },
                ended: {
                    let bytes = seen.state.withLock { state in
                        state.ends += 1
                        return state.bytes
                    }
                    continuation.resume(returning: bytes)
                })
        }
        #expect(total == sent)
        #expect(seen.state.withLock { $0.ends } == 1)
    }

    private final class Seen: Sendable {
        let state = Mutex<(bytes: [UInt8], ends: Int)>(([], 0))
    }
}
