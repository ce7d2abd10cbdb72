import TuyaCore

extension BridgeServer {
    /// Everything retained, in the documented order: state, info, devices, Home Assistant
    /// discovery (when enabled), each device's availability (once known), each device's
    /// values, the timer's session and the maintenance reminders.
    func republishAll() async {
        // One at a time (a connect's and a Home Assistant birth's may overlap), and none once
        // the caller is cancelled (the bridge stopping): `online` must not follow `offline`.
        let place = republishes.take()
        if !republishes.isTurn(of: place) { await withCheckedContinuation { republishes.wait($0, for: place) } }
        defer { republishes.leave()?.resume() }
        guard !Task.isCancelled else { return }
        enqueue(topics.state, BridgeJSON.value(AvailabilityPayload.online), retain: true)
        publishInfo()
        let devices = await controller.devices()
        let inactive = await controller.inactiveDevices
        var statuses: [DeviceID: ConnectionStatus] = [:]
        var states: [DeviceID: DeviceState] = [:]
        for device in devices {
            statuses[device.id] = await controller.status(of: device.id)
            states[device.id] = await reportedState(of: device.id)
        }
        // Enqueued without a suspension in between, so nothing can slip into the sequence.
        enqueueDevices(devices, inactive: inactive)
        enqueueDiscovery(devices, keeping: inactive.map(\.device), republish: true)
        for device in devices { enqueueAvailability(device, statuses[device.id]) }
        // Not driven: offline, where the last run may have left `online` retained.
        for entry in inactive {
            let payload = AvailabilityPayload(state: "offline", reason: entry.availabilityReason)
            enqueue(topics.availability(entry.device.name), BridgeJSON.value(payload), retain: true)
        }
        for device in devices {
            if let state = states[device.id] { enqueueState(state, of: device) }
        }
        publisher.republishSessionStatus()
        await maintenance?.republishReminders()
        for id in retained.republished() {
            guard let device = await controller.device(id) else { continue }
            enqueueAvailability(device, await controller.status(of: id))
            // A change the republish already read is not sent twice.
            if let state = await reportedState(of: id), state != states[id] { enqueueState(state, of: device) }
        }
    }
}
