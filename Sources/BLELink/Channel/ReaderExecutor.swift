/// A `SocketChannel`'s reader thread as a task executor: a task preferring it
/// (`withTaskExecutorPreference`) runs its nonisolated code, and the default actors it enters,
/// on that thread, between one `poll` and the next. A task waiting there for a PDU (a device
/// link reading notifications) is resumed where the PDU was read, without waking a pool
/// thread; a task sending from there writes from it.
///
/// A default actor entered from such a task runs on the reader thread too, with the jobs other
/// tasks queued on it (Swift's runtime drains an actor where it is scheduled, and lets a task
/// that leaves it go on there until it suspends): a device link's own work, which never blocks,
/// and callers' brief steps until their next wait. Reads wait meanwhile; the thread hands at
/// most `SocketChannelCore.batch` PDUs on per turn, so the jobs get their turn between a
/// flooding peer's PDUs.
///
/// The executor outlives the channel: once the reader thread has stopped, jobs go to the
/// global concurrent executor, so a task still preferring a closed connection's executor runs
/// on as any other.
final class ReaderExecutor: TaskExecutor {
    /// Held strongly: a task may keep the executor after the channel is gone.
    private let core: SocketChannelCore

    init(core: SocketChannelCore) {
        self.core = core
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if !core.queue(job) { Self.elsewhere(job) }
    }

    /// Runs a job taken from the reader thread's queue, on that thread.
    func run(_ job: UnownedJob) {
        job.runSynchronously(on: asUnownedTaskExecutor())
    }

    /// A job the stopped reader thread cannot run.
    static func elsewhere(_ job: UnownedJob) {
        globalConcurrentExecutor.enqueue(ExecutorJob(job))
    }
}
