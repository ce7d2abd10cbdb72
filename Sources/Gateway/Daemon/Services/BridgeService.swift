import Logging
import ServiceLifecycle

/// The bridge API's broker connection in the daemon's service group: connects (the other
/// services wait for `ready`), and at shutdown, once the controller has stopped, records
/// the last reports, publishes `offline` and disconnects. A bridge that cannot connect
/// fails the daemon's start, naming the broker.
struct BridgeService: Service {
    let bridge: BridgeServer
    let ready: Readiness
    /// The broker, as the configuration names it (no password).
    let broker: String
    let logger: Logger

    func run() async throws {
        do {
            try await bridge.start()
        } catch {
            ready.fail()
            await bridge.abandon()
            throw GatewayStartError("the bridge could not connect to \(broker): \(error)")
        }
        ready.succeed()
        await shutdownRequested("bridge", logger: logger)
        await bridge.finish()
    }
}

/// The bridge's requests in the daemon's service group: the first thing a shutdown stops
/// (after the metrics listener), so requests under way answer while the timer, maintenance
/// and the devices still run.
struct BridgeRequestsService: Service {
    let bridge: BridgeServer
    let logger: Logger

    func run() async {
        await shutdownRequested("bridge requests", logger: logger)
        await bridge.refuseNewRequests()
    }
}
