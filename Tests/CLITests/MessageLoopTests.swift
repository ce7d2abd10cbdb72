import Foundation
import Gateway
import Testing

@testable import youll_devices

/// `forEach`, the loop `monitor` and `pair` print through: pure, over a stream the test fills.
@Suite("the CLI's message loop")
struct MessageLoopTests {
    static func messages(_ count: Int) -> AsyncStream<BridgeMessage> {
        let (stream, sink) = AsyncStream.makeStream(of: BridgeMessage.self)
        for index in 0..<count {
            sink.yield(BridgeMessage(topic: "youll/lamp", payload: Array("\(index)".utf8), retained: false))
        }
        sink.finish()
        return stream
    }

    @Test(
        "a reader that falls behind gets messages in order, the newest always, and is told how many it lost; the end is still an error"
    )
    func boundedBacklog() async throws {
        var seen: [Int] = []
        var lost = 0
        await #expect(throws: ConnectionLost.self) {
            try await forEach(Self.messages(2_000), for: nil, backlog: 2, onDropped: { lost += $0 }) { message in
                seen.append(Int(String(decoding: message.payload, as: UTF8.self)) ?? -1)
                return true
            }
        }
        #expect(seen == seen.sorted(), "in order")
        #expect(seen.last == 1_999, "the newest is never dropped")
        #expect(seen.count + lost == 2_000, "every message is either handed over or counted as lost")
    }

    @Test("the body ends the loop by returning false, whatever is still queued")
    func bodyEndsTheLoop() async throws {
        var seen = 0
        try await forEach(Self.messages(50), for: nil) { _ in
            seen += 1
            return seen < 3
        }
        #expect(seen == 3)
    }
}
