/// One lane per device for `<base>/<name>/set`: each command takes a place as it arrives and
/// is looked up, parsed (a TOGGLE reads the state the commands before it asked for) and queued
/// on the device's link only after the command before it in its lane has been; then it leaves
/// the lane and waits for its own confirmation, so a slow device delays nothing but its own
/// answers. Without it each command was handled by its own task, and one that needed an extra
/// step (TOGGLE reads the current state) was overtaken by the next: TOGGLE then OFF, published
/// back to back, could leave the light on.
///
/// Lanes are keyed by the name in the topic: a client that addresses one device by its
/// friendly name and by its id in the same burst gets two lanes, not ordered between them.
/// Owned by the bridge's actor.
struct SetLanes {
    private struct Lane {
        /// Places given out, and the place whose turn it is.
        var taken = 0
        var serving = 0
        /// Commands waiting for their turn, by place.
        var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private var lanes: [String: Lane] = [:]

    /// Lanes with commands in them.
    var count: Int { lanes.count }

    /// The next place in `name`'s lane: called in the order the commands arrived.
    mutating func take(_ name: String) -> Int {
        var lane = lanes[name, default: Lane()]
        defer { lanes[name] = lane }
        lane.taken += 1
        return lane.taken - 1
    }

    func isTurn(of place: Int, in name: String) -> Bool { lanes[name]?.serving == place }

    /// Keeps `continuation` until `place`'s turn comes.
    mutating func wait(_ continuation: CheckedContinuation<Void, Never>, for place: Int, in name: String) {
        lanes[name]?.waiting[place] = continuation
    }

    /// Ends the turn of the place being served in `name`'s lane; returns the continuation of
    /// the next place if it is already waiting (to resume), and drops an empty lane.
    mutating func leave(_ name: String) -> CheckedContinuation<Void, Never>? {
        guard var lane = lanes[name] else { return nil }
        lane.serving += 1
        if lane.serving == lane.taken {
            lanes[name] = nil
            return nil
        }
        let next = lane.waiting.removeValue(forKey: lane.serving)
        lanes[name] = lane
        return next
    }
}
