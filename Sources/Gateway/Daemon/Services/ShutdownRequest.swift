import Logging
import ServiceLifecycle

/// Returns when the service group asks the calling service to stop: a graceful shutdown
/// (SIGTERM, SIGINT, another service failing to start), or cancellation, when the group
/// tears down at once. Either way the service then stops what it runs, in order; a
/// cancellation is logged, so it is never mistaken for a graceful stop.
func shutdownRequested(_ service: String, logger: Logger) async {
    do {
        try await gracefulShutdown()
    } catch {
        logger.notice("\(service): cancelled, stopping at once")
    }
}
