import Logging
import ServiceLifecycle
import TuyaController

/// The device controller in the daemon's service group. It is started before the group
/// runs (the daemon waits for the broker, which may come up after the gateway at boot);
/// at shutdown it stops after the timer and maintenance, and before the bridge records
/// the last reports and goes offline.
struct ControllerService: Service {
    let controller: TuyaController
    let logger: Logger

    func run() async {
        await shutdownRequested("devices", logger: logger)
        await controller.stop()
    }
}
