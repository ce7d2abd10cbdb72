import Foundation
import TuyaCore

/// Hours each device has had a capability on (`mist`, `power`), counted from confirmed
/// state reports and availability changes. Pure: every input carries its time.
///
/// Counting rules (issue 7, protocol/TUYA.md §5 recommendation):
/// - An interval starts at a report that shows the capability on, while the device is
///   online, and ends at the next report, the device going offline, or a snapshot restore.
/// - Time while the device is offline never counts. When it comes back online nothing is
///   counted until it reports again: the gateway does not guess the state it came back in.
/// - A report field that is absent (`nil`) leaves that capability as it was.
/// - Mist counts only while the master switch is not reported off.
/// - A report or availability change dated earlier than the last one adds nothing.
public struct UsageCounter: Hashable, Sendable {
    /// The capabilities a maintenance rule can count (`ProfileLoader` accepts `mist` and `power`).
    public static let countedCapabilities: [Capability] = [.mist, .power]

    private struct DeviceUsage: Hashable, Sendable {
        var online = false
        var running: Set<Capability> = []
        /// Start of the interval being counted, when online.
        var since: Date?
        var totals: [Capability: Double] = [:]

        mutating func close(at time: Date) {
            if online, let since {
                let elapsed = max(0, time.timeIntervalSince(since))
                for capability in running { totals[capability, default: 0] += elapsed }
            }
            if let since { self.since = max(since, time) }
        }
    }

    private var devices: [DeviceID: DeviceUsage] = [:]

    public init() {}

    /// Resumes from a stored snapshot. Every device starts offline with nothing running:
    /// the time between the snapshot and now is not counted.
    public init(restoring snapshot: UsageSnapshot) {
        for entry in snapshot.entries {
            guard let capability = Capability(rawValue: entry.capability), entry.seconds.isFinite, entry.seconds > 0
            else { continue }
            devices[entry.device, default: DeviceUsage()].totals[capability, default: 0] += entry.seconds
        }
    }

    /// A confirmed state report: the device is online and these capabilities are on or off from `time`.
    public mutating func observe(state: DeviceState, of device: DeviceID, at time: Date) {
        var usage = devices[device] ?? DeviceUsage()
        usage.close(at: time)
        usage.online = true
        if usage.since == nil { usage.since = time }
        for (capability, isOn) in Self.switches(in: state) {
            guard let isOn else { continue }
            if isOn { usage.running.insert(capability) } else { usage.running.remove(capability) }
        }
        devices[device] = usage
    }

    /// The device became reachable. Nothing counts until its next report.
    public mutating func deviceOnline(_ device: DeviceID, at time: Date) {
        var usage = devices[device] ?? DeviceUsage()
        guard !usage.online else { return }
        usage.online = true
        usage.running = []
        usage.since = time
        devices[device] = usage
    }

    /// The device became unreachable: the running interval ends here.
    public mutating func deviceOffline(_ device: DeviceID, at time: Date) {
        guard var usage = devices[device] else { return }
        usage.close(at: time)
        usage.online = false
        usage.running = []
        usage.since = nil
        devices[device] = usage
    }

    /// Seconds `capability` has been on for `device`, up to `time`.
    public func seconds(of capability: Capability, device: DeviceID, at time: Date) -> Double {
        guard var usage = devices[device] else { return 0 }
        usage.close(at: time)
        return usage.totals[capability] ?? 0
    }

    public func hours(of capability: Capability, device: DeviceID, at time: Date) -> Double {
        seconds(of: capability, device: device, at: time) / 3600
    }

    /// The wall clock stepped: an interval running across the step ends at the old frame's
    /// now and goes on from the new one, so the jump itself never counts as usage.
    public mutating func clockStepped(_ step: ClockStepDetector.Step) {
        for (device, var usage) in devices {
            usage.close(at: step.expected)
            if usage.since != nil { usage.since = step.actual }
            devices[device] = usage
        }
    }

    /// Forgets a device that was removed.
    public mutating func forget(_ device: DeviceID) {
        devices[device] = nil
    }

    /// Totals up to `time`, for the store.
    public func snapshot(at time: Date) -> UsageSnapshot {
        var entries: [UsageSnapshot.Entry] = []
        for (device, usage) in devices {
            var closed = usage
            closed.close(at: time)
            for (capability, seconds) in closed.totals where seconds > 0 {
                entries.append(UsageSnapshot.Entry(device: device, capability: capability.rawValue, seconds: seconds))
            }
        }
        return UsageSnapshot(takenAt: time, entries: entries)
    }

    /// Whether each counted capability is on in a report (`nil`: not reported).
    static func switches(in state: DeviceState) -> [(Capability, Bool?)] {
        switch state {
        case .light(let light):
            return [(.power, light.power)]
        case .diffuser(let diffuser):
            let mist: Bool? = diffuser.power == false ? false : diffuser.mist
            return [(.power, diffuser.power), (.mist, mist)]
        }
    }
}
