import Testing
import YoullTestSupport

/// The test rig's real-time bounds (`withDeadline`, `Task.value(within:)`): every wait on a
/// stream, a daemon or a process goes through them, so a hung wait must end at its bound
/// and name what it waited for. Zero bounds, so nothing here waits for time to pass.
@Suite("the test rig's deadlines")
struct DeadlineTests {
    @Test("a body that never finishes ends at the bound with an error naming what it waited for")
    func bodyThatNeverFinishes() async throws {
        let error = await #expect(throws: DeadlineExceeded.self) {
            try await withDeadline(0, "the answer that never comes") { try await neverUnlessCancelled() }
        }
        #expect(error?.description == "timed out waiting for the answer that never comes")
    }

    @Test("a body that finishes in time gives its value")
    func bodyThatFinishes() async throws {
        #expect(try await withDeadline(60, "a value") { 42 } == 42)
    }

    @Test(
        "a wait cancelled before its timer is armed ends at once, not at its bound", .timeLimit(.minutes(1))
    )
    func cancelledWait() async {
        let wait = Task { try await withDeadline(3_600, "an hour") { try await neverUnlessCancelled() } }
        wait.cancel()
        await #expect(throws: (any Error).self) { try await wait.value }
    }

    @Test("a task that has not ended by the bound is given up, with an error naming it, and cancelled")
    func taskThatNeverEnds() async throws {
        let hung = Task<Int, any Error> { try await neverUnlessCancelled() }
        let error = await #expect(throws: DeadlineExceeded.self) {
            try await hung.value(within: .zero, "the hung task")
        }
        #expect(error?.what == "the hung task")
        #expect(hung.isCancelled)
        await #expect(throws: CancellationError.self) { try await hung.value }
    }

    @Test("a task that has ended gives its value or its error")
    func taskThatEnded() async throws {
        #expect(try await Task<Int, any Error> { 7 }.value(within: .seconds(60), "seven") == 7)
        await #expect(throws: CancellationError.self) {
            try await Task<Int, any Error> { throw CancellationError() }.value(within: .seconds(60), "a failure")
        }
    }
}

/// Suspends until its task is cancelled, then throws `CancellationError`.
private func neverUnlessCancelled() async throws -> Int {
    let gate = CancellationGate()
    await withTaskCancellationHandler {
        await gate.wait()
    } onCancel: {
        Task { await gate.open() }
    }
    throw CancellationError()
}

private actor CancellationGate {
    private var isOpen = false
    private var waiter: CheckedContinuation<Void, Never>?

    func wait() async {
        guard !isOpen else { return }
        await withCheckedContinuation { waiter = $0 }
    }

    func open() {
        isOpen = true
        waiter?.resume()
        waiter = nil
    }
}
