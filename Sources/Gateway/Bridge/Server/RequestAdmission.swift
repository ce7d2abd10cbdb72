/// Which requests the bridge takes on, as a pure state machine: at most `limit` under way
/// at once (a flood cannot exhaust memory), and none once shutdown began. A refused request
/// is answered at once with the reason; an admitted one gets an id to report its end with.
struct RequestAdmission: Hashable, Sendable {
    enum Decision: Hashable, Sendable {
        case admitted(id: Int)
        case refused(reason: String)
    }

    /// Requests handled at once.
    let limit: Int
    /// Set once shutdown began; never cleared.
    private(set) var isRefusing = false
    private(set) var underWay: Set<Int> = []
    private var nextID = 0

    init(limit: Int) {
        self.limit = limit
    }

    mutating func admit() -> Decision {
        if isRefusing { return .refused(reason: "the gateway is shutting down") }
        guard underWay.count < limit else { return .refused(reason: "too many requests at once; try again") }
        nextID += 1
        underWay.insert(nextID)
        return .admitted(id: nextID)
    }

    /// The admitted request `id` was answered.
    mutating func finished(_ id: Int) {
        underWay.remove(id)
    }

    /// Shutdown: every request from now on is refused.
    mutating func refuseNew() {
        isRefusing = true
    }
}
