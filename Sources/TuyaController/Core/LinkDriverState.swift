import Foundation
import Timing
import TuyaCore

/// What the shared driver code (`DeviceLinkDriver`'s extension) keeps in every link, held
/// as one value so each link declares and builds it once: the callers waiting for their
/// commands, where news goes, the clock, whether the link is stopped, and its one timer.
struct LinkDriverState {
    /// Callers of `send` waiting for their ticket.
    var waiters: [CommandQueue.Ticket: CommandAnswer] = [:]
    /// Replaced in one step when pairing hands a link to the registry (`adopt`).
    var listeners: LinkListeners
    let clock: OffsetClock
    /// Set by `stop()`; a stopped link takes no more work and arms no timer.
    var isStopped = false
    var timer = LinkTimer()

    init(clock: OffsetClock, hub: EventHub, onDesiredChange: @escaping @Sendable (DataPoints) -> Void) {
        self.clock = clock
        listeners = LinkListeners(hub: hub, onDesiredChange: onDesiredChange)
    }
}
