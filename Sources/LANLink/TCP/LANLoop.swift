import NIOCore
import NIOPosix

/// One SwiftNIO event loop, as the serial executor a device link runs on: the link's actor
/// and its connection's channel share the loop's thread, so a frame in → decrypt → state →
/// frame out runs there in one go, without a hop through the cooperative pool.
public struct LANLoop: Sendable {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
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

    /// Runs `work` on the loop, after what is queued there already.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        eventLoop.execute(work)
    }
}
