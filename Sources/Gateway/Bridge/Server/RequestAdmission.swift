/// Which requests the bridge takes on, as a pure state machine: at most `limit` under way
/// at once (a flood cannot exhaust memory), of which at most `slowLimit` slow ones (pairing,
/// rekeying, backups: each may take 15 s or more), so `/set`, `/get` and quick requests
/// always have `limit - slowLimit` slots that slow ones cannot take; and none once shutdown
/// began. A refused request is answered at once with the reason; an admitted one gets an id
/// to report its end with.
struct RequestAdmission: Hashable, Sendable {
    enum Decision: Hashable, Sendable {
        case admitted(id: Int)
        case refused(reason: String)
    }

    enum Kind: Hashable, Sendable {
        case quick
        case slow
    }

    /// The verbs that wait on a device or the disk for seconds.
    static let slowVerbs: Set<String> = ["device/add", "device/rekey", "backup"]

    /// Requests handled at once.
    let limit: Int
    /// Slow requests handled at once (fewer than `limit`).
    let slowLimit: Int
    /// Set once shutdown began; never cleared.
    private(set) var isRefusing = false
    private(set) var underWay: Set<Int> = []
    private(set) var slowUnderWay: Set<Int> = []
    private var nextID = 0

    init(limit: Int, slowLimit: Int = 8) {
        self.limit = limit
        self.slowLimit = min(slowLimit, max(0, limit - 1))
    }

    mutating func admit(_ kind: Kind = .quick) -> Decision {
        if isRefusing { return .refused(reason: "the gateway is shutting down") }
        if kind == .slow, slowUnderWay.count >= slowLimit {
            return .refused(
                reason:
                    "\(slowUnderWay.count) slow requests (pairing, rekeying, backups) are under way; try again when one has finished"
            )
        }
        guard underWay.count < limit else { return .refused(reason: "too many requests at once; try again") }
        nextID += 1
        underWay.insert(nextID)
        if kind == .slow { slowUnderWay.insert(nextID) }
        return .admitted(id: nextID)
    }

    /// The admitted request `id` was answered.
    mutating func finished(_ id: Int) {
        underWay.remove(id)
        slowUnderWay.remove(id)
    }

    /// Shutdown: every request from now on is refused.
    mutating func refuseNew() {
        isRefusing = true
    }
}
