import TuyaCore

/// The order of the bridge's retained topics after each connection, as a pure state
/// machine: the server tells it what happened and publishes when it says so.
///
/// After every connection the retained topics go out in full, in the documented order
/// (state, info, devices, discovery, availability, values). Until that republish is
/// enqueued, a device's state or availability change is held back (the republish carries
/// it) and sent again right after it, so no change can slip in before `bridge/devices`
/// and no change made meanwhile is lost.
struct RetainedPublishState: Hashable, Sendable {
    /// Whether the bridge's broker connection is up.
    private(set) var isConnected = false
    /// Whether the retained topics were republished since this connection came up.
    private(set) var isAnnounced = false
    /// Devices that changed while the republish was being gathered.
    private var changedDuringRepublish: Set<DeviceID> = []

    /// The connection came up; a full republish follows.
    mutating func connected() {
        isConnected = true
    }

    /// The connection dropped: nothing is announced until the next connection's republish.
    mutating func disconnected() {
        isConnected = false
        isAnnounced = false
    }

    /// A device's state or availability changed. True: publish it now. False: it waits for
    /// the republish under way and comes back from `republished()`.
    mutating func deviceChanged(_ id: DeviceID) -> Bool {
        if isAnnounced { return true }
        changedDuringRepublish.insert(id)
        return false
    }

    /// The full republish was enqueued. Returns the devices that changed meanwhile, in id
    /// order, to be sent again after it; none when the connection dropped meanwhile (the next
    /// connection's republish carries them).
    mutating func republished() -> [DeviceID] {
        isAnnounced = isConnected
        guard isAnnounced else { return [] }
        defer { changedDuringRepublish = [] }
        return changedDuringRepublish.sorted()
    }
}
