import TuyaCore

/// The parts of a diffuser that change by themselves: the countdown timer and the tank.
/// DP ids come from the profile's capabilities (`power`, `mist`, `timer`,
/// `minutes_left`, `fault`), so the same code drives layout M and layout L, where one
/// DP is both the master and the mist switch (protocol/TUYA.md §4.2).
extension SimulatedDevice {
    /// The DPs this behaviour reads and writes, looked up once from the profile.
    struct Roles: Sendable {
        var power: DataPointID?
        var mist: DataPointID?
        var timer: DataPointID?
        var minutesLeft: DataPointID?
        var fault: DataPointID?
        /// The fault bit labelled `water_shortage` (bit 0 when the label is missing).
        var waterShortageBit: Int

        init(profile: DeviceProfile) {
            power = profile.capabilities[.power]?.dataPoint
            mist = profile.capabilities[.mist]?.dataPoint
            timer = profile.capabilities[.timer]?.dataPoint
            minutesLeft = profile.capabilities[.minutesLeft]?.dataPoint
            fault = profile.capabilities[.fault]?.dataPoint
            waterShortageBit = profile.faults.first { $0.label == "water_shortage" }?.bit ?? 0
        }
    }

    /// Whether the water-shortage bit is raised.
    public var hasWaterShortage: Bool {
        guard let fault = roles.fault, case .bitmap(let bits)? = state[fault] else { return false }
        return bits & (1 << UInt32(roles.waterShortageBit)) != 0
    }

    /// Fills the tank and clears the water-shortage bit, reporting the fault DP.
    public mutating func refill(at time: Duration) -> [Action] {
        var actions = advance(to: time)
        waterLeft = behaviour.tankDuration
        guard let fault = roles.fault, case .bitmap(let bits)? = state[fault] else { return actions }
        let cleared = bits & ~(1 << UInt32(roles.waterShortageBit))
        actions += reportSpontaneously([set(fault, .bitmap(cleared))].compactMap { $0 })
        return actions
    }

    /// Raises the fault bit the profile labels `label` (as the device would on its own),
    /// reporting the fault DP; nil when the profile has no such fault or no fault DP.
    public mutating func raiseFault(_ label: String, at time: Duration) -> [Action]? {
        guard let bit = profile.faults.first(where: { $0.label == label })?.bit, let fault = roles.fault else {
            return nil
        }
        var actions = advance(to: time)
        let bits: UInt32 = if case .bitmap(let current)? = state[fault] { current } else { 0 }
        actions += reportSpontaneously([set(fault, .bitmap(bits | 1 << UInt32(bit)))].compactMap { $0 })
        return actions
    }

    var isMisting: Bool {
        guard let mist = roles.mist, state[mist] == .bool(true) else { return false }
        guard let power = roles.power, power != mist else { return true }
        return state[power] == .bool(true)
    }

    var tankEmptyTime: Duration? {
        guard isMisting else { return nil }
        return now + max(waterLeft, .zero)
    }

    var nextTimerTick: Duration? {
        guard let timerEnd else { return nil }
        let minutes = Self.minutesLeft(until: timerEnd, from: now)
        return timerEnd - .seconds(60 * max(minutes - 1, 0))
    }

    mutating func drainWater(until time: Duration) {
        guard isMisting else { return }
        waterLeft = max(waterLeft - (time - now), .zero)
    }

    /// Follows a command that wrote `written`: setting the timer starts or cancels the
    /// countdown, switching off cancels it, and misting with an empty tank fails at once.
    mutating func applyDiffuserSideEffects(of written: Set<DataPointID>) -> [DataPointID] {
        var changed: [DataPointID?] = []
        if let timer = roles.timer, written.contains(timer), case .enumeration(let label)? = state[timer],
            let spec = profile.dataPoint(timer)
        {
            if let minutes = Self.timerMinutes(label: label, spec: spec) {
                timerEnd = now + .seconds(60 * minutes)
                changed.append(set(roles.minutesLeft, .value(clampedMinutes(minutes))))
            } else {
                changed += cancelTimer()
            }
        }
        if let power = roles.power, written.contains(power), state[power] == .bool(false), timerEnd != nil {
            changed += cancelTimer()
        }
        changed += checkTank()
        return changed.compactMap { $0 }
    }

    /// Timer ticks, the end of the countdown and an empty tank, at `now`.
    mutating func fireDiffuserEvents() -> [Action] {
        var changed: [DataPointID?] = []
        if let timerEnd {
            if timerEnd <= now {
                changed.append(set(roles.power, .bool(false)))
                changed.append(set(roles.mist, .bool(false)))
                changed += cancelTimer()
            } else {
                let minutes = Self.minutesLeft(until: timerEnd, from: now)
                changed.append(set(roles.minutesLeft, .value(clampedMinutes(minutes))))
            }
        }
        changed += checkTank()
        return reportSpontaneously(changed.compactMap { $0 })
    }

    /// With the tank empty and the mist on: raise water shortage and stop misting.
    private mutating func checkTank() -> [DataPointID?] {
        guard isMisting, waterLeft <= .zero else { return [] }
        var changed: [DataPointID?] = [set(roles.mist, .bool(false))]
        if let fault = roles.fault, case .bitmap(let bits)? = state[fault] {
            changed.append(set(fault, .bitmap(bits | 1 << UInt32(roles.waterShortageBit))))
        }
        return changed
    }

    private mutating func cancelTimer() -> [DataPointID?] {
        timerEnd = nil
        var changed: [DataPointID?] = [set(roles.minutesLeft, .value(0))]
        if let timer = roles.timer, let first = profile.dataPoint(timer)?.values.first {
            changed.append(set(timer, .enumeration(first)))
        }
        return changed
    }

    private func clampedMinutes(_ minutes: Int) -> Int32 {
        let value = Int32(clamping: minutes)
        guard let id = roles.minutesLeft, let range = profile.dataPoint(id)?.range else { return value }
        return min(max(value, range.lowerBound), range.upperBound)
    }

    /// Whole minutes left, rounded up, as the device shows them.
    static func minutesLeft(until end: Duration, from time: Duration) -> Int {
        let remaining = (end - time).components
        guard remaining.seconds >= 0, remaining.seconds > 0 || remaining.attoseconds > 0 else { return 0 }
        let seconds = remaining.seconds + (remaining.attoseconds > 0 ? 1 : 0)
        return Int((seconds + 59) / 60)
    }

    /// The countdown a timer label stands for; nil for the first label (cancel).
    /// Legacy layout L lists "0"…"3" for cancel, 1 h, 3 h, 6 h (protocol/TUYA.md §4.2);
    /// other products name the hours ("1", "3", "6", "2h") or minutes ("30min").
    static func timerMinutes(label: String, spec: DataPointSpec) -> Int? {
        guard let index = spec.values.firstIndex(of: label), index > 0 else { return nil }
        if spec.values.first == "0" {
            let legacyHours = [1, 3, 6]
            return index - 1 < legacyHours.count ? legacyHours[index - 1] * 60 : nil
        }
        guard let number = Int(label.prefix { $0.isASCII && $0.isNumber }), number > 0 else { return nil }
        return label.lowercased().hasSuffix("min") ? number : number * 60
    }
}
