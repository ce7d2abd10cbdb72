import BLELink
import Foundation
import Testing
import YoullTestSupport

/// A `SocketChannel`'s reader thread as a task executor (`taskExecutor`): what runs there,
/// what resumes there, and that a task preferring it never waits for a thread that is gone. A
/// lost job is a task that never resumes: the time limit turns that hang into a failure.
@Suite("A socket channel's reader thread as a task executor", .timeLimit(.minutes(1)))
struct ReaderExecutorTests {
    /// Runs `body` with a fresh socketpair and the first end's executor, then closes both ends
    /// (closing is idempotent: a test may close one first).
    private func withPair<T>(
        _ body: (SocketChannel, SocketChannel, any TaskExecutor) async throws -> T
    ) async throws -> T {
        let (a, b) = try SocketChannel.pair()
        return try await withCleanup {
            try await body(a, b, try #require(a.taskExecutor))
        } cleanup: {
            await a.close()
            await b.close()
        }
    }

    @Test("a task preferring it runs on the reader thread, and the PDU it waits for resumes it there")
    func runsAndResumesOnTheReader() async throws {
        try await withPair { a, b, executor in
            let (before, received, after) = try await withDeadline(10, "a PDU received on the reader thread") {
                try await withTaskExecutorPreference(executor) {
                    let before = currentThreadName()
                    try await b.send([0x2A])
                    let received = try await a.receive()
                    return (before, received, currentThreadName())
                }
            }
            #expect(before == "youll-ble-rx")
            #expect(received == [0x2A])
            #expect(after == "youll-ble-rx", "resumed where the PDU was read")
        }
    }

    @Test("once the channel has closed, a task preferring its executor still runs, elsewhere")
    func outlivesTheChannel() async throws {
        try await withPair { a, b, executor in
            await a.close()
            await b.close()
            // The reader thread stops soon after the close; until then it runs the jobs itself.
            let name = try await withDeadline(10, "a job off the stopped reader thread") {
                while !Task.isCancelled {
                    let name = await withTaskExecutorPreference(executor) {
                        await Task.yield()
                        return currentThreadName()
                    }
                    if name != "youll-ble-rx" { return name }
                }
                return "cancelled"
            }
            #expect(name != "youll-ble-rx")
        }
    }

    @Test("a task that keeps yielding on the reader thread does not stop it reading")
    func busyJobsDoNotStarveReads() async throws {
        try await withPair { a, b, executor in
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
        }
    }

    @Test("with no traffic at all, jobs that queue jobs all run: the thread never sleeps with one queued")
    func jobsQueuedByJobsRun() async throws {
        try await withPair { _, _, executor in
            let turns = try await withDeadline(10, "10,000 yields on the reader thread") {
                await Task(executorPreference: executor) {
                    var turns = 0
                    for _ in 0..<10_000 where !Task.isCancelled {
                        await Task.yield()
                        turns += 1
                    }
                    return turns
                }.value
            }
            #expect(turns == 10_000)
        }
    }

    @Test("a task waiting on the reader thread for a PDU when the channel closes is resumed with the end")
    func waitingTaskResumedAtTheEnd() async throws {
        try await withPair { a, _, executor in
            let waiting = Task(executorPreference: executor) { try await a.receive() }
            // Most often it is waiting by now; either way the answer is the end.
            for _ in 0..<10 { await Task.yield() }
            await a.close()
            let received = try await withDeadline(10, "the waiting receive() resumed by the close") {
                try await waiting.value
            }
            #expect(received == nil)
        }
    }
}
