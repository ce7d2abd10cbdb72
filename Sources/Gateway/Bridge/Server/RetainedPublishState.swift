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
    /// Each device's availability as last enqueued on this connection.
    private var announcedAvailability: [DeviceID: Availability] = [:]

    /// The connection came up; a full republish follows.
    mutating func connected() {
        isConnected = true
        announcedAvailability = [:]
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

    /// Whether a device's availability is to be published: not when this connection
    /// already carries the same word (a change of hint only, or a change that was read by
    /// the republish and also handed back by `republished()`), so a subscriber never sees
    /// `online` twice in a row. `force` publishes anyway (a renamed device's new topic).
    mutating func announce(_ availability: Availability, of id: DeviceID, force: Bool = false) -> Bool {
        guard force || announcedAvailability[id] != availability else { return false }
        announcedAvailability[id] = availability
        return true
    }

    /// A removed device: the next device paired with its id starts from nothing.
    mutating func forget(_ id: DeviceID) {
        announcedAvailability[id] = nil
        changedDuringRepublish.remove(id)
    }
}
