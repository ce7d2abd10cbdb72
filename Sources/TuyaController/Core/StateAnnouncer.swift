import TuyaCore

/// Decides which events a device's new reported values are worth: `stateChanged` when its
/// typed state differs from the last one announced, and `faultRaised` / `faultCleared` for
/// the fault labels that appeared or went. Pure; shared by the MQTT and BLE links.
struct StateAnnouncer: Sendable {
    private let device: DeviceID
    private var lastState: DeviceState?
    private var lastFaults: Set<String> = []

    /// `saved` is the state known from before a restart: a fault it had is not raised again.
    /// The state itself is announced once more when the device comes online (`forgetState`).
    init(device: DeviceID, saved: DeviceState?) {
        self.device = device
        if let saved { remember(saved) }
    }

    /// The events for `state`, in the order listeners should see them.
    mutating func events(for state: DeviceState) -> [ControllerEvent] {
        guard state != lastState else { return [] }
        let faultsBefore = lastFaults
        remember(state)
        var events: [ControllerEvent] = [.stateChanged(device, state)]
        guard case .diffuser = state else { return events }
        let raised = lastFaults.subtracting(faultsBefore).sorted()
        let cleared = faultsBefore.subtracting(lastFaults).sorted()
        if !raised.isEmpty { events.append(.faultRaised(device, raised)) }
        if !cleared.isEmpty { events.append(.faultCleared(device, cleared)) }
        return events
    }

    /// The device came back online: its first report is announced even when it equals the
    /// last, since listeners that stopped counting when it went offline (usage hours) wait
    /// for it. The faults stay remembered, so a fault still raised is not raised again.
    mutating func forgetState() {
        lastState = nil
    }

    private mutating func remember(_ state: DeviceState) {
        lastState = state
        if case .diffuser(let diffuser) = state { lastFaults = Set(diffuser.faults) }
    }
}
