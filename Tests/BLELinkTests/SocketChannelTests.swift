import BLELink
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Real parts: a socketpair(AF_UNIX, SOCK_SEQPACKET) and its Dispatch sources.
@Suite("Socket channel over a seqpacket socketpair")
struct SocketChannelTests {
    @Test("each send arrives as one PDU with its boundaries, in order")
    func boundaries() async throws {
        let (a, b) = try SocketChannel.pair()
        let pdus: [[UInt8]] = [[0x01], Array(repeating: 0xAB, count: 20), (0..<517).map { UInt8($0 & 0xFF) }]
        for pdu in pdus { try await a.send(pdu) }
        for pdu in pdus { #expect(try await b.receive() == pdu) }
        await a.close()
        await b.close()
    }

    @Test("each channel's reader thread is named youll-ble-rx, as top -H and perf show threads")
    func readerThreadName() async throws {
        let (a, b) = try SocketChannel.pair()
        // The thread names itself once it runs: a PDU through each channel proves both run.
        try await a.send([0x01])
        #expect(try await b.receive() == [0x01])
        try await b.send([0x02])
        #expect(try await a.receive() == [0x02])
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        let names = tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
        #expect(names.filter { $0.hasPrefix("youll-ble-rx") }.count >= 2, "\(Set(names))")
        await a.close()
        await b.close()
    }

    @Test("close() wakes a pending receive with end-of-file, and later sends fail")
    func closeWakesReceive() async throws {
        let (a, b) = try SocketChannel.pair()
        let waiting = Task { try await a.receive() }
        await Task.yield()
        await a.close()
        #expect(try await waiting.value == nil)
        #expect(try await a.receive() == nil)
        await #expect(throws: ByteChannelError.closed) { try await a.send([0x01]) }
        #expect(try await b.receive() == nil, "the peer sees end-of-file too")
        await b.close()
    }

    @Test("PDUs sent before the peer closed are read before end-of-file")
    func drainBeforeEOF() async throws {
        let (a, b) = try SocketChannel.pair()
        try await a.send([0x1B, 0x01, 0x00, 0x42])
        try await a.send([0x1B, 0x01, 0x00, 0x43])
        await a.close()
        #expect(try await b.receive() == [0x1B, 0x01, 0x00, 0x42])
        #expect(try await b.receive() == [0x1B, 0x01, 0x00, 0x43])
        #expect(try await b.receive() == nil)
        await b.close()
    }

    @Test("an empty PDU is refused; an oversized one ends the channel with its size")
    func sizes() async throws {
        let (a, b) = try SocketChannel.pair(maximumPDUSize: 16)
        await #expect(throws: ByteChannelError.emptyPDU) { try await a.send([]) }
        try await a.send(Array(repeating: 0, count: 17))
        await #expect(throws: ByteChannelError.oversizedPDU(size: 17, maximum: 16)) { try await b.receive() }
        await a.close()
        await b.close()
    }

    @Test("a flood the reader has not asked for yet pauses the sender and arrives complete and in order")
    func backpressure() async throws {
        let (a, b) = try SocketChannel.pair()
        let count = 3_000
        let sender = Task {
            for index in 0..<count {
                try await a.send([UInt8(index & 0xFF), UInt8(index >> 8)] + Array(repeating: 7, count: 18))
            }
        }
        for index in 0..<count {
            let pdu = try await b.receive()
            #expect(pdu?.prefix(2) == [UInt8(index & 0xFF), UInt8(index >> 8)])
        }
        try await sender.value
        await a.close()
        await b.close()
    }

    @Test(
        "four threads sending at once, past a full socket: every PDU arrives once, each thread's in its order",
        .timeLimit(.minutes(1)))
    func concurrentSenders() async throws {
        let (a, b) = try SocketChannel.pair()
        let senders = 4
        let count = 2_000
        // Real threads, so sends overlap in their system calls; two of them wait for each PDU
        // to leave, two queue without waiting, as the bearer does. Nothing is read until the two
        // that queue are done, so the socket fills while they send.
        let queued = DispatchGroup()
        let threads = (0..<senders).map { sender in
            if sender % 2 == 0 { queued.enter() }
            return Thread {
                defer { if sender % 2 == 0 { queued.leave() } }
                for index in 0..<count {
                    let pdu = [UInt8(sender), UInt8(index & 0xFF), UInt8(index >> 8)] + Array(repeating: 9, count: 17)
                    if sender % 2 == 0 {
                        try? a.enqueue(pdu)
                    } else {
                        let sent = DispatchSemaphore(value: 0)
                        Task {
                            try? await a.send(pdu)
                            sent.signal()
                        }
                        sent.wait()
                    }
                }
            }
        }
        for thread in threads { thread.start() }
        await withCheckedContinuation { done in queued.notify(queue: .global()) { done.resume() } }
        var next = [Int](repeating: 0, count: senders)
        for _ in 0..<(senders * count) {
            guard let pdu = try await b.receive(), pdu.count == 20 else {
                Issue.record("the channel ended or a PDU lost its boundaries")
                break
            }
            let sender = Int(pdu[0])
            let index = Int(pdu[1]) | Int(pdu[2]) << 8
            guard index == next[sender] else {
                Issue.record("sender \(sender): PDU \(index) arrived where \(next[sender]) was due")
                break
            }
            next[sender] += 1
        }
        #expect(next == [Int](repeating: count, count: senders))
        await a.close()
        await b.close()
    }

    @Test("cancelling a task blocked in receive ends it with CancellationError")
    func cancellation() async throws {
        let (a, b) = try SocketChannel.pair()
        let waiting = Task { try await a.receive() }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        try await b.send([0x01])
        #expect(try await a.receive() == [0x01], "the channel still works after a cancelled receive")
        await a.close()
        await b.close()
    }
}

/// Real parts: this machine's kernel, through socket(AF_BLUETOOTH, SOCK_SEQPACKET, BTPROTO_L2CAP).
@Suite("L2CAP LE connect")
struct L2CAPChannelTests {
    static let kernelHasBluetooth = FileManager.default.fileExists(atPath: "/sys/class/bluetooth")

    @Test("an address that is not six hex pairs is refused before any socket is opened")
    func invalidAddress() async {
        for text in [
            "", "AA:BB:CC:DD:EE", "AA:BB:CC:DD:EE:GG", "AABBCCDDEEFF", "AA:BB:CC:DD:EE:FF:00", "A:BB:CC:DD:EE:FF",
        ] {
            await #expect(throws: L2CAPConnectError.invalidAddress(text)) {
                _ = try await L2CAPChannel.connect(address: text, addressType: .public)
            }
        }
    }

    @Test(
        "on a kernel without Bluetooth, connecting says so and names the fix",
        .enabled(if: !kernelHasBluetooth, "this kernel has Bluetooth"))
    func kernelWithoutBluetooth() async {
        do {
            _ = try await L2CAPChannel.connect(
                address: "DC:23:4D:11:22:33", addressType: .random, timeout: .seconds(10))
            Issue.record("connected without Bluetooth")
        } catch {
            #expect(error == .unavailable(.kernelWithoutBluetooth(reason: String(cString: strerror(EAFNOSUPPORT)))))
            #expect(error.description.hasPrefix("the kernel has no Bluetooth support"))
            #expect(error.description.contains("CONFIG_BT"))
        }
    }
}
