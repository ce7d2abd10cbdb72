import BLELink

extension DoctorCheck {
    /// `ble.transport` other than `bluez`: could the gateway's own HCI host open the controller
    /// and initialize it? `opened` is nil when it was not tried because the running daemon holds
    /// the controller (opening it again would reset it under the daemon).
    public static func hciTransport(
        _ ble: GatewayConfiguration.BLE, opened: Result<HCIControllerInfo, HCIHostError>?
    ) -> DoctorCheck {
        let transport = ble.transport.description
        guard let opened else {
            return .ok("ble", "\(transport) is held by the running daemon (not opened again)")
        }
        switch opened {
        case .success(let info):
            let address = info.address.map { " \($0)" } ?? ""
            let scan = info.usesExtendedCommands ? "extended" : "legacy"
            return .ok(
                "ble",
                "controller\(address) on \(transport) answers: \(info.aclBuffers.totalPackets) LE buffers of "
                    + "\(info.aclBuffers.dataPacketLength) bytes, \(scan) scanning")
        case .failure(let error):
            switch ble.mode {
            case .on:
                return .fail(
                    "ble", "\(error); the daemon will not start (ble.enabled: on)",
                    fix: "correct ble.transport (\(BLETransportSetting.forms))")
            case .auto, .off:
                return .warn(
                    "ble", "\(error); the daemon runs without BLE (ble.enabled: auto)",
                    fix: "correct ble.transport, or set ble.enabled: off")
            }
        }
    }

    /// Opens the transport and an HCI host on it, reads what start-up learned, closes it.
    static func openController(_ setting: BLETransportSetting) async -> Result<HCIControllerInfo, HCIHostError> {
        do throws(HCIHostError) {
            let host = try await HCIHost.open(try await HCITransportOpener.open(setting))
            let info = await host.controller
            await host.close()
            guard let info else { return .failure(.closed) }
            return .success(info)
        } catch {
            return .failure(error)
        }
    }
}
