import Timing
/// The one timer task of a device link (MQTT or BLE), sleeping until the earliest wake its
/// cores ask for and then calling the link back.
struct LinkTimer {
    private var task: Task<Void, Never>?
    private var wake: Duration?

    /// Arms for `wake` unless already armed for it or for an earlier time.
    ///
    /// A timer armed earlier than needed is kept, and so is one no longer needed at all (nil):
    /// it fires, the link's tick finds nothing due yet (every core checks the time) and
    /// re-arms for the real wake, if any. Replacing it instead would cost a task per change,
    /// and a cancelled sleep still holds its dispatch timer until its deadline: a command
    /// moves the wake to its confirmation deadline and its report moves it back (or clears
    /// it), so 1,000 devices under load left thousands of cancelled sleeps behind, and every
    /// command woke two pool threads, one to start a sleep and one to cancel it. `cancel()`
    /// ends the timer when the link stops.
    mutating func arm(for wake: Duration?, clock: OffsetClock, fire: @escaping @Sendable () async -> Void) {
        guard Self.replaces(armed: task == nil ? nil : self.wake, with: wake) else { return }
        task?.cancel()
        self.wake = wake
        guard let wake else {
            task = nil
            return
        }
        let sleepUntil = clock.sleepUntil
        task = Task {
            do { try await sleepUntil(wake) } catch { return }
            await fire()
        }
    }

    /// Whether a timer armed for `armed` (nil: none) must be replaced to wake at `wake`
    /// (nil: never): only by an earlier wake.
    static func replaces(armed: Duration?, with wake: Duration?) -> Bool {
        guard let wake else { return false }
        guard let armed else { return true }
        return wake < armed
    }

    /// The timer went off: the next `arm` starts a new task whatever its wake.
    mutating func fired() {
        task = nil
        wake = nil
    }

    mutating func cancel() {
        task?.cancel()
        task = nil
        wake = nil
    }
}
