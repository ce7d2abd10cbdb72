import NIOCore
import NIOPosix

/// One SwiftNIO event loop, as the serial executor a device link runs on: the link's actor
/// and its connection's channel share the loop's thread, so a frame in → decrypt → state →
/// frame out runs there in one go, without a hop through the cooperative pool.
public struct LANLoop: Sendable {
    let eventLoop: any EventLoop
    private let jobs: LoopTaskExecutor

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
        jobs = LoopTaskExecutor(eventLoop: eventLoop)
    }

    /// The next loop of the process's shared group (links spread over its threads).
    public static func next() -> LANLoop {
        LANLoop(MultiThreadedEventLoopGroup.singleton.next())
    }

    /// For an actor's `unownedExecutor`. The group's loops live as long as the process, so
    /// the unowned reference never dangles.
    public var unownedExecutor: UnownedSerialExecutor {
        eventLoop.executor.asUnownedSerialExecutor()
    }

    /// The loop as a task executor. A task preferring it (`withTaskExecutorPreference`) runs
    /// its nonisolated code, and the default actors it enters, on the loop's thread: a caller
    /// that sends to a link on this loop writes from there, and the answer read there resumes
    /// it there, without waking another thread either way. Nothing that blocks may run so, and
    /// a default actor entered from such a task runs here too, with what other tasks queued on it.
    public var taskExecutor: any TaskExecutor { jobs }

    /// Whether the calling thread is the loop's.
    public var isCurrent: Bool { eventLoop.inEventLoop }

    /// Runs `work` on the loop, after what is queued there already.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        eventLoop.execute(work)
    }
}

/// Runs a task's jobs on one event loop, in the order enqueued (see `LANLoop.taskExecutor`).
private final class LoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
