/// When Home Assistant's `online` (its birth message) republishes everything: at once, then at
/// most once per `interval`, the births in between coalesced into one republish at the end of
/// it. Each republish sends every config, availability and state (several KB per device) for
/// a 6-byte message anyone on the broker can publish; Home Assistant itself sends one per
/// start. A pure value on the bridge's clock (offsets from its start), owned by the bridge.
struct BirthRepublishes {
    static let interval = Duration.seconds(10)

    enum Decision: Equatable {
        /// Republish now.
        case now
        /// Republish at this time (schedule it; `trailingRan` when it has).
        case at(Duration)
        /// Covered by the republish already scheduled.
        case coalesced
    }

    private var last: Duration?
    private var scheduled = false
    /// The scheduled republish, cancelled when the bridge stops.
    var trailing: Task<Void, Never>?

    mutating func birth(at now: Duration) -> Decision {
        guard let last, now < last + Self.interval else {
            last = now
            return .now
        }
        if scheduled { return .coalesced }
        scheduled = true
        return .at(last + Self.interval)
    }

    mutating func trailingRan(at now: Duration) {
        scheduled = false
        trailing = nil
        last = now
    }
}
