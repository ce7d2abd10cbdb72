import Logging
import SessionEngine
import ServiceLifecycle

/// The timer in the daemon's service group: once the bridge is up it resumes the session
/// left running by the previous daemon (or records it as interrupted), and the retained
/// `bridge/session` shows idle when nothing resumed. At shutdown the session under way is
/// suspended, so the next start resumes it.
struct TimerService: Service {
    let sessions: SessionService
    let publisher: BridgePublisher
    let bridgeReady: Readiness
    let ready: Readiness
    let logger: Logger

    func run() async {
        guard await bridgeReady.waitUnlessStopping() else {
            ready.fail()
            await shutdownRequested("timer", logger: logger)
            return
        }
        await sessions.recover()
        if await !sessions.isActive { publisher.publishSessionStatus(SessionStatusPayload.idle.json) }
        ready.succeed()
        await shutdownRequested("timer", logger: logger)
        await sessions.suspend()
    }
}
