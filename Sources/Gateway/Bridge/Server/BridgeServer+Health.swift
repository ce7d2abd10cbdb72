import Maintenance
import TuyaController
import TuyaCore

extension BridgeTopics {
    /// `<base>/bridge/health`: the gateway's health, retained, after every connection and every minute.
    public var health: String { base + "/bridge/health" }
}

extension BridgeServer {
    /// Gathers the gateway's health now: the bridge's counters, the controller's devices and
    /// BLE links, the maintenance service's reminders (nil when it is switched off).
    public func healthSnapshot() async -> GatewayHealth {
        var devices: [(Transport, Availability?)] = []
        for device in await controller.devices() {
            devices.append((device.transport, await controller.status(of: device.id)?.availability))
        }
        let ble = await controller.bleConnections()
        var reminders: [ReminderStatus: Int]?
        if let maintenance {
            var counts: [ReminderStatus: Int] = [:]
            for entry in await maintenance.reminders() { counts[entry.report.status, default: 0] += 1 }
            reminders = counts
        }
        // The active session as `bridge/session` shows it; nil when none runs.
        let session = await sessions?.isActive == true ? publisher.sessionStatus : nil
        return GatewayHealth(
            uptime: uptime, residentMemory: ProcessMemory.residentBytes(), messagesIn: counters.messagesIn,
            messagesOut: publisher.messagesOut, devices: GatewayHealth.count(devices),
            bleConnected: ble.connected.count,
            bleWaiting: ble.waiting.count, bleLimit: ble.limit, bleFailures: ble.failures,
            deviceBus: controller.deviceBusStatistics, session: session,
            reminders: reminders)
    }

    /// Publishes `<base>/bridge/health` (retained) and brings the Prometheus gauges up to date.
    func publishHealth() async {
        let health = await healthSnapshot()
        metrics.record(health)
        enqueue(topics.health, health.json, retain: true)
        logDroppedMessages(deviceBus: health.deviceBus?.rejectedFrames[DeviceBusStatistics.bufferFull] ?? 0)
    }

    /// One warning per health interval when messages were dropped unread since the last one
    /// (`MQTTConfiguration.maximumBufferedMessages`): someone publishes faster than the daemon
    /// reads, on the bridge's topics or the devices'.
    private func logDroppedMessages(deviceBus: Int) {
        let bridge = client.droppedMessages
        let dropped = bridge + deviceBus
        guard dropped > counters.droppedLogged else { return }
        let line =
            "\(dropped - counters.droppedLogged) MQTT messages dropped unread since the last health check "
            + "(\(bridge) on the bridge's topics, \(deviceBus) from devices since start): "
            + "something publishes faster than the gateway reads; look for a client flooding the broker"
        logger.warning("\(line)")
        counters.droppedLogged = dropped
    }

    /// Publishes the health every `settings.healthInterval` on the bridge's clock, while
    /// connected, and saves where a running timer session is (`SessionService.checkpoint`).
    func healthLoop() -> Task<Void, Never> {
        let clock = clock
        let interval = settings.healthInterval
        let sessions = sessions
        return Task { [weak self] in
            while true {
                do { try await clock.sleep(for: interval) } catch { return }
                guard let self else { return }
                if await self.isConnected { await self.publishHealth() }
                // After the health: a slow write is what the health reports, not what delays it.
                await sessions?.checkpoint()
            }
        }
    }
}

extension BridgeServer {
    /// Brings the Prometheus gauges up to date (called before each scrape).
    public func refreshMetrics() async {
        metrics.record(await healthSnapshot())
    }
}
