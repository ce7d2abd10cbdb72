import BLELink
import DeviceSimulator
import Foundation
import Synchronization
import TuyaController

/// The per-hop figures behind the BLE DP write: the same 20-byte packet echoed by the simulated
/// peripheral through one more layer of the gateway's stack per rung, all over a socketpair in
/// the same run. The difference between two rungs is what that layer costs a packet round trip:
/// - `socket`: BLELink's `SocketChannel` at both ends, handed over by its reader thread
///   (`deliver(to:)`) and sent at once (`enqueue`), as the bearer and the simulator use it;
/// - `gatt`: a Write Command through `GATTClient` and the ATT bearer, answered by the simulated
///   GATT server as a Handle Value Notification into the client's `notifications`;
/// - `transport`: the same through `GATTTuyaTransport.write` and its `packets()` stream, which the
///   BLE device link reads.
/// What the DP write adds on top of `transport` is the device link, the Tuya BLE session (three
/// frames, AES and CRC) and the controller.
struct BLELadder {
    let samples: Int

    func socket() async throws -> [Double] {
        let (near, far) = try SocketChannel.pair()
        far.deliver { event in
            if case .pdu(let packet) = event { try? far.enqueue(packet) }
        }
        let (replies, feed) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .unbounded)
        near.deliver { event in
            if case .pdu(let packet) = event { feed.yield(packet) } else { feed.finish() }
        }
        defer {
            Task {
                await near.close()
                await far.close()
            }
        }
        var iterator = replies.makeAsyncIterator()
        return try await measure { packet in
            try near.enqueue(packet)
            guard await iterator.next() != nil else { throw BenchError("socket echo ended") }
        }
    }

    func gatt() async throws -> [Double] {
        let (near, far) = try SocketChannel.pair()
        let server = Self.echoServer(on: far)
        let client = GATTClient.connect(over: near)
        _ = try await client.exchangeMTU()
        _ = try await client.discoverTuyaService()
        try await client.enableNotifications()
        defer {
            Task {
                await client.close()
                await server.dropLink()
            }
        }
        var iterator = client.notifications.makeAsyncIterator()
        return try await measure { packet in
            try client.enqueueWithoutResponse(packet)
            guard await iterator.next() != nil else { throw BenchError("GATT echo ended") }
        }
    }

    func transport() async throws -> [Double] {
        let (near, far) = try SocketChannel.pair()
        let server = Self.echoServer(on: far)
        let transport = GATTTuyaTransport { near }
        try await transport.connect()
        defer {
            Task {
                await transport.disconnect()
                await server.dropLink()
            }
        }
        var iterator = transport.packets().makeAsyncIterator()
        return try await measure { packet in
            transport.write([packet])
            guard await iterator.next() != nil else { throw BenchError("transport echo ended") }
        }
    }

    /// A simulated Tuya GATT server (FD50) that notifies back every value written to it.
    private static func echoServer(on channel: SocketChannel) -> SimulatedGATTServer {
        let box = Mutex<SimulatedGATTServer?>(nil)
        let server = SimulatedGATTServer(channel: channel, layout: .fd50) { value in
            _ = try? box.withLock { $0 }?.notifyNow(value)
        }
        box.withLock { $0 = server }
        return server
    }

    /// Round trips of a 20-byte packet in microseconds, sorted, after 200 unmeasured ones.
    private func measure(_ roundTrip: ([UInt8]) async throws -> Void) async throws -> [Double] {
        let packet = [UInt8](repeating: 0xA5, count: 20)
        let clock = ContinuousClock()
        var times: [Double] = []
        times.reserveCapacity(samples)
        for index in 0..<(samples + 200) {
            let start = clock.now
            try await roundTrip(packet)
            if index >= 200 {
                let duration = start.duration(to: clock.now)
                times.append(
                    Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) * 1e-12)
            }
        }
        return times.sorted()
    }
}
