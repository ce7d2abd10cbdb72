import Foundation
import Gateway
import LocalBroker
import Testing

/// Real parts: a private mosquitto (LocalBroker), the real `BridgeClient`, and the test
/// publishing as the daemon would (`FakeDaemon`).
@Suite("Bridge client: a reader that falls behind")
struct BridgeClientBacklogTests {
    @Test("keeps the newest messages up to its buffer and counts the oldest it dropped, instead of growing")
    func backlogIsBounded() async throws {
        let broker = try await LocalBroker.started()
        let daemon = try await FakeDaemon.start(broker)
        let client = try BridgeClient(
            configuration: BridgeClientBrokerTests().configuration(broker), listenerBuffer: 8)
        try await client.connect(timeout: .seconds(10))
        let flood = try await client.subscribe(["youll/flood"])
        let end = try await client.subscribe(["youll/flood-end"])
        for index in 0..<100 { try await daemon.publish("youll/flood", "\(index)") }
        try await daemon.publish("youll/flood-end", "end")
        // The client routes in the broker's order: the marker comes after all 100.
        var ends = end.makeAsyncIterator()
        #expect(await ends.next()?.payload == Array("end".utf8))
        #expect(await client.droppedMessages == 92)
        await client.close()
        var kept: [String] = []
        for await message in flood { kept.append(String(decoding: message.payload, as: UTF8.self)) }
        #expect(kept == (92..<100).map(String.init))
        await daemon.stop()
    }
}
