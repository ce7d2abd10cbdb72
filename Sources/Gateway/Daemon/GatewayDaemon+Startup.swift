import BLELink
import Foundation
import MQTTLink
import ServiceLifecycle
import Storage
import Timing
import TuyaController
import TuyaCore

extension GatewayDaemon {
    /// `ble.enabled: on` refuses to start without a working adapter; `auto` carries on
    /// with Wi-Fi devices only and says why; `off` does not look. Returns the adapter's
    /// description when BLE can be used.
    func checkBluetooth() throws -> BLESupport {
        if let radio, configuration.ble.mode != .off {
            let adapter = radio.adapter ?? "injected"
            logger.info("BLE through the radio given to the daemon (\(adapter))")
            return .available(adapter: adapter)
        }
        guard configuration.ble.mode != .off else {
            logger.info("BLE is switched off in the configuration")
            return .unavailable(reason: "switched off in the configuration (ble.enabled: off)")
        }
        do {
            let adapter = try BluetoothAvailability.probe(adapter: configuration.ble.adapter)
            logger.info("BLE adapter \(adapter.name) (\(adapter.address)) is available")
            return .available(adapter: adapter.name)
        } catch {
            if configuration.ble.mode == .on {
                throw GatewayStartError("BLE is required (ble.enabled: on) but cannot be used: \(error)")
            }
            logger.notice("BLE unavailable, continuing with Wi-Fi devices only: \(error)")
            return .unavailable(reason: error.description)
        }
    }

    /// Starts the controller, retrying while the broker cannot be reached (it may start
    /// after the gateway at boot). A broker that refuses the credentials or the TLS
    /// settings stops the start: retrying cannot fix that. Returns nil when a graceful
    /// shutdown came first.
    func startController(library: ProfileLibrary, database: GatewayDatabase, radio: BLERadio) async throws
        -> TuyaController?
    {
        let backoff = Backoff(initial: .seconds(1), maximum: .seconds(30))
        for attempt in 0... {
            let controller = try makeController(library: library, database: database, radio: radio)
            do {
                try await controller.start()
                await reportLANDiscovery(controller)
                await warnAboutInactiveDevices(controller)
                return controller
            } catch let error as MQTTError where Self.isTransient(error) {
                let delay = backoff.delay(retry: attempt)
                logger.warning(
                    "broker \(configuration.mqtt) not reachable (\(error)); retrying in \(delay.roundedText)")
                hooks.status("waiting for the broker at \(configuration.mqtt)")
                let shutDown = await cancelWhenGracefulShutdown {
                    (try? await Task.sleep(for: delay)) == nil
                }
                if shutDown || Task.isCancelled || Task.isShuttingDownGracefully { return nil }
            } catch {
                throw GatewayStartError("cannot use the broker \(configuration.mqtt): \(error)")
            }
        }
        return nil
    }

    /// A stored device that cannot be driven (its profile did not load, its stored key or
    /// row is unusable) stays paired, listed with its problem and its Home Assistant
    /// entities kept: say so at start, with the fix. A row too damaged to name its device
    /// is said too; every other device is driven.
    private func warnAboutInactiveDevices(_ controller: TuyaController) async {
        for inactive in await controller.inactiveDevices {
            let device = inactive.device
            logger.warning(
                "device \(GatewayDatabase.shown(device.name)) (\(device.id)) is not driven: \(inactive.problem); it stays paired and listed, its Home Assistant entities are kept; \(inactive.fix)"
            )
        }
        for problem in await controller.unreadableDevices {
            logger.warning("\(problem); every other device is driven; \(GatewayDatabase.damagedRowFix)")
        }
    }

    private func makeController(library: ProfileLibrary, database: GatewayDatabase, radio: BLERadio) throws
        -> TuyaController
    {
        var busConfiguration = configuration.mqttLinkConfiguration()
        busConfiguration.clientID = configuration.effectiveClientID + "-devices"
        let bus: MQTTDeviceBus
        do {
            bus = try MQTTDeviceBus(configuration: busConfiguration)
        } catch {
            throw GatewayStartError("the device bus's MQTT client: \(error)")
        }
        var settings = TuyaController.Configuration()
        settings.confirmationTimeout = configuration.devices.confirmationTimeout
        settings.queryInterval = configuration.devices.queryInterval
        settings.reapplyWithin = configuration.devices.reapplyWithin
        return TuyaController(
            bus: bus, library: library, store: SQLiteDeviceStore(database: database, queuesDesiredStates: true),
            radio: radio,
            lan: lanNetwork(), configuration: settings)
    }

    static func isTransient(_ error: MQTTError) -> Bool {
        switch error {
        case .connectionRefused, .hostNotFound, .network, .timedOut, .connectionLost: true
        default: false
        }
    }

    /// `bridge/info`: what is useful to see, nothing secret (the broker address is shown
    /// without its username or password); the public key local keys are sealed to.
    func info(bleAdapter: String?) -> BridgeInfo {
        BridgeInfo(
            bleAdapter: bleAdapter, version: version, publicKey: identity?.publicKeyText,
            auth: configuration.bridge.auth,
            config: BridgeInfo.Settings(
                baseTopic: configuration.baseTopic, mqtt: configuration.mqtt.broker.description,
                stateDirectory: configuration.stateDirectory, ble: configuration.ble.mode.rawValue,
                lan: configuration.lan.description, logLevel: configuration.logLevel.rawValue,
                permitJoinDefaultSeconds: configuration.permitJoinTimeout.components.seconds))
    }
}
