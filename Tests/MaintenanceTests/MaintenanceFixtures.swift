import Foundation
import Testing
import TuyaCore
import YoullTestSupport

@testable import Maintenance

/// Wall time for the pure cores, driven by the manual test clock: `now` is a fixed origin
/// plus however far the test has advanced the clock.
struct TestTime {
    let clock = ManualClock()
    let origin = Date(timeIntervalSince1970: 1_800_000_000)

    var now: Date {
        let offset = clock.now.offset.components
        return origin.addingTimeInterval(Double(offset.seconds) + Double(offset.attoseconds) / 1e18)
    }

    func advance(hours: Double) { clock.advance(by: .seconds(hours * 3600)) }
    func advance(days: Double) { advance(hours: days * 24) }
}

enum Fixtures {
    static let diffuser = DeviceID("desk-diffuser")!
    static let other = DeviceID("hall-diffuser")!

    /// The repository's `devices/` folder.
    static var devicesDirectory: URL {
        Repository.devicesDirectory
    }

    /// The shipped layout-M diffuser: refill on water_shortage, clean at 40 h of mist or 14
    /// days, replace-wick at 500 h or 180 days.
    static func modernDiffuser() throws -> DeviceProfile {
        let library = Repository.shippedProfiles
        return try #require(library.profile(id: "aroma-diffuser-modern"))
    }

    /// A diffuser whose "clean" rule resets a device counter (DP 102) and is due soon at
    /// half of 10 mist hours or 20 days, and whose refill also fires on 30 days.
    static func resettingDiffuser() throws -> DeviceProfile {
        try ProfileLoader.parse(
            yaml: """
                id: resetting-diffuser
                name: Diffuser with a filter counter
                category: xxj
                transports: [mqtt]
                data_points:
                  - { id: 1, code: switch, type: bool }
                  - { id: 2, code: switch_spray, type: bool }
                  - { id: 11, code: fault, type: bitmap, access: ro }
                  - { id: 102, code: filter_reset, type: bool, access: wo }
                capabilities:
                  power: switch
                  mist: switch_spray
                  fault: fault
                faults:
                  - { bit: 0, label: water_shortage }
                maintenance:
                  - type: refill
                    title: Refill the water tank
                    body: The tank is empty.
                    steps: [Fill it.]
                    triggers: [{ fault: water_shortage }, { days: 30 }]
                  - type: clean
                    title: Clean the filter
                    body: The filter is clogged.
                    steps: [Rinse the filter., Press reset.]
                    triggers: [{ usage_hours: 10, of: mist }, { days: 20 }]
                    due_soon_at: 0.5
                    reset_dp: filter_reset
                    reset_value: true

                """, source: "test/resetting-diffuser.yaml")
    }

    static func misting(_ on: Bool, faults: [String] = []) -> DeviceState {
        .diffuser(DiffuserState(power: true, mist: on, faults: faults))
    }
}
