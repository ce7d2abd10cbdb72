import Testing
import TuyaCore

@testable import Storage

/// Pure: the group commit queue over a write the test makes fail, no database.
@Suite("group commits of device states")
struct StateCommitQueueTests {
    actor Writes {
        var failing = true
        var written: [[DeviceID: DataPoints]] = []

        func write(_ desired: [DeviceID: DataPoints]) throws(StorageError) {
            guard !failing else { throw .fileSystem(path: "/state/state.sqlite", reason: "No space left on device") }
            written.append(desired)
        }

        func recover() { failing = false }
    }

    @Test(
        "a desired state lost to a failed write (nobody waits for it) goes again with the next batch, unless a newer one was queued"
    )
    func failedDesiredIsRetried() async throws {
        let writes = Writes()
        let queue = StateCommitQueue { desired, _ throws(StorageError) in try await writes.write(desired) }
        let on: DataPoints = [Fixture.dp(1): .bool(true)]
        let off: DataPoints = [Fixture.dp(1): .bool(false)]
        let failed = queue.queueDesired(on, for: Fixture.lampID)
        let alsoFailed = queue.queueDesired(on, for: Fixture.diffuserID)
        #expect(await queue.wait(for: failed) != nil, "the disk is full")
        #expect(await queue.wait(for: alsoFailed) != nil)
        await writes.recover()
        // The next batch: a newer state for the diffuser, and a confirmed state (what the
        // daemon writes every time a device reports).
        let next = queue.queueDesired(off, for: Fixture.diffuserID)
        #expect(await queue.wait(for: next) == nil)
        #expect(await writes.written == [[Fixture.lampID: on, Fixture.diffuserID: off]])
        // Written once: not again with the batch after.
        let after = queue.queueDesired(off, for: Fixture.lampID)
        #expect(await queue.wait(for: after) == nil)
        #expect(await writes.written.last == [Fixture.lampID: off])
    }

    @Test("flushing as the daemon stops tries a failed desired state once more")
    func flushRetries() async throws {
        let writes = Writes()
        let queue = StateCommitQueue { desired, _ throws(StorageError) in try await writes.write(desired) }
        let on: DataPoints = [Fixture.dp(1): .bool(true)]
        #expect(await queue.wait(for: queue.queueDesired(on, for: Fixture.lampID)) != nil)
        await writes.recover()
        await queue.flush()
        #expect(await writes.written == [[Fixture.lampID: on]])
    }
}
