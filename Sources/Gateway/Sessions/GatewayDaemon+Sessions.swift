import Storage
import TuyaController
import TuyaCore

extension GatewayDaemon {
    /// Starts the timer once the bridge is up: sessions stored in SQLite, announced on
    /// the bridge, the session left running by the previous daemon resumed (or recorded
    /// as interrupted). The retained `bridge/session` shows idle when nothing resumed.
    func startSessions(
        controller: TuyaController, database: GatewayDatabase, bridge: BridgeServer, library: ProfileLibrary
    ) async -> SessionService {
        let logger = logger
        let store = SQLiteSessionStore(database: database, warn: { logger.warning("\($0)") })
        // Ramps step no faster than each device's profile allows frames.
        var settings = SessionService.Settings(configuration.timer)
        settings.frameGap = { device in
            library.profile(id: device.profileID).map { .milliseconds(max(1, $0.frameGapMilliseconds)) }
        }
        let service = SessionService(
            controller: controller, store: store, settings: settings, announcer: bridge.sessionAnnouncer,
            logger: logger)
        await bridge.attachSessions(service)
        await service.recover()
        if await !service.isActive { await bridge.publishSessionStatus(SessionStatusPayload.idle) }
        return service
    }
}
