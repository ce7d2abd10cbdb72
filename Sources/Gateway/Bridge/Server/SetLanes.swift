/// Turns in arrival order: places are given out as requests arrive and served one at a time,
/// in that order, whatever order their tasks run in. Owned by one actor.
struct TurnLane {
    /// Places given out, and the place whose turn it is.
    private var taken = 0
    private var serving = 0
    /// Requests waiting for their turn, by place.
    private var waiting: [Int: CheckedContinuation<Void, Never>] = [:]

    /// No place given out is still unserved.
    var isIdle: Bool { serving == taken }

    /// The next place: called in the order the requests arrived.
    mutating func take() -> Int {
        taken += 1
        return taken - 1
    }

    func isTurn(of place: Int) -> Bool { serving == place }

    /// Keeps `continuation` until `place`'s turn comes.
    mutating func wait(_ continuation: CheckedContinuation<Void, Never>, for place: Int) {
        waiting[place] = continuation
    }

    /// Ends the turn being served; returns the continuation of the next place if it is
    /// already waiting (to resume).
    mutating func leave() -> CheckedContinuation<Void, Never>? {
        serving += 1
        return waiting.removeValue(forKey: serving)
    }
}

/// One lane per device for `<base>/<name>/set`: each command is looked up, parsed (a TOGGLE
/// reads the state the commands before it asked for) and queued on the device's link only
/// after the command before it in its device's lane has been; then it leaves the lane and
/// waits for its own confirmation, so a slow device delays nothing but its own answers.
/// Without it each command was handled by its own task, and one that needed an extra step
/// (TOGGLE reads the current state) was overtaken by the next: TOGGLE then OFF, published
/// back to back, could leave the light on.
///
/// Lanes are keyed by the device, not by the name in the topic (a device answers to its
/// friendly name and to its id): the bridge resolves names in arrival order through a
/// `TurnLane` of its own and takes the device's place as it does. Owned by the bridge's actor.
struct SetLanes<Key: Hashable & Sendable>: Sendable {
    private var lanes: [Key: TurnLane] = [:]

    /// Lanes with commands in them.
    var count: Int { lanes.count }

    /// The next place in `key`'s lane: called in the order the commands arrived.
    mutating func take(_ key: Key) -> Int { lanes[key, default: TurnLane()].take() }

    func isTurn(of place: Int, in key: Key) -> Bool { lanes[key]?.isTurn(of: place) == true }

    /// Keeps `continuation` until `place`'s turn comes.
    mutating func wait(_ continuation: CheckedContinuation<Void, Never>, for place: Int, in key: Key) {
        lanes[key]?.wait(continuation, for: place)
    }

    /// Ends the turn of the place being served in `key`'s lane; returns the continuation of
    /// the next place if it is already waiting (to resume), and drops an empty lane.
    mutating func leave(_ key: Key) -> CheckedContinuation<Void, Never>? {
        guard var lane = lanes[key] else { return nil }
        let next = lane.leave()
        lanes[key] = lane.isIdle ? nil : lane
        return next
    }
}
