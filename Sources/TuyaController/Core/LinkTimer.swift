import Timing
/// The one timer task of a device link (MQTT or BLE), sleeping until the earliest wake its
/// cores ask for and then calling the link back.
struct LinkTimer {
    private var task: Task<Void, Never>?
    private var wake: Duration?

    /// Arms for `wake` unless already armed for it; nil disarms.
    mutating func arm(for wake: Duration?, clock: OffsetClock, fire: @escaping @Sendable () async -> Void) {
        guard wake != self.wake || task == nil else { return }
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
