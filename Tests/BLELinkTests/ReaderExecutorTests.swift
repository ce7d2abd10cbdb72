import BLELink
import Foundation
import Testing
import YoullTestSupport

/// A `SocketChannel`'s reader thread as a task executor (`taskExecutor`): what runs there,
/// what resumes there, and that a task preferring it never waits for a thread that is gone.
@Suite("A socket channel's reader thread as a task executor")
struct ReaderExecutorTests {
    @Test("a task preferring it runs on the reader thread, and the PDU it waits for resumes it there")
    func runsAndResumesOnTheReader() async throws {
        let (a, b) = try SocketChannel.pair()
        let executor = try #require(a.taskExecutor)
        let (before, received, after) = try await withTaskExecutorPreference(executor) {
            let before = currentThreadName()
            try await b.send([0x2A])
            let received = try await a.receive()
            return (before, received, currentThreadName())
        }
        #expect(before == "youll-ble-rx")
        #expect(received == [0x2A])
        #expect(after == "youll-ble-rx", "resumed where the PDU was read")
        await a.close()
        await b.close()
    }

    @Test("once the channel has closed, a task preferring its executor still runs, elsewhere")
    func outlivesTheChannel() async throws {
        let (a, b) = try SocketChannel.pair()
        let executor = try #require(a.taskExecutor)
        await a.close()
        await b.close()
        // The reader thread stops soon after the close; until then it runs the jobs itself.
        let name = try await withDeadline(10, "a job off the stopped reader thread") {
            while true {
                let name = await withTaskExecutorPreference(executor) {
                    await Task.yield()
                    return currentThreadName()
                }
                if name != "youll-ble-rx" { return name }
            }
        }
        #expect(name != "youll-ble-rx")
    }

    @Test("a task that keeps yielding on the reader thread does not stop it reading")
    func busyJobsDoNotStarveReads() async throws {
        let (a, b) = try SocketChannel.pair()
        let executor = try #require(a.taskExecutor)
        let spinner = Task(executorPreference: executor) {
            while !Task.isCancelled { await Task.yield() }
        }
        defer { spinner.cancel() }
        for value in UInt8(1)...20 {
            try await b.send([value])
            let received = try await withDeadline(10, "PDU \(value) while the reader thread is busy") {
                try await a.receive()
            }
            #expect(received == [value])
        }
        spinner.cancel()
        await a.close()
        await b.close()
    }
}
