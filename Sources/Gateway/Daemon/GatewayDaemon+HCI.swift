import BLELink

/// `ble.transport` other than `bluez`: the gateway runs its own HCI host on the configured
/// stream. The same rules as for BlueZ apply at start: `on` refuses to start when the controller
/// cannot be opened and initialized, `auto` carries on with Wi-Fi devices only and says why.
extension GatewayDaemon {
    /// The link to the controller when the gateway runs its own HCI host; nil for BlueZ, when
    /// BLE is off, or when a radio was given to the daemon.
    func ownHostLink() -> HCIControllerLink? {
        guard radio == nil, configuration.ble.mode != .off, configuration.ble.transport.usesOwnHost else { return nil }
        return HCIControllerLink(setting: configuration.ble.transport)
    }

    /// Opens the host once: its controller must answer start-up. The link keeps it open for the
    /// radio, and opens it again later if the controller goes away.
    func checkOwnHost(_ link: HCIControllerLink) async throws -> BLESupport {
        let transport = link.setting.description
        do {
            let host = try await link.host()
            let address = await host.controller?.address ?? "no public address"
            logger.info("BLE through this gateway's HCI host on \(transport) (controller \(address))")
            return .available(adapter: transport)
        } catch {
            if configuration.ble.mode == .on {
                throw GatewayStartError("BLE is required (ble.enabled: on) but cannot be used: \(error)")
            }
            logger.notice("BLE unavailable, continuing with Wi-Fi devices only: \(error)")
            return .unavailable(reason: error.description)
        }
    }
}
