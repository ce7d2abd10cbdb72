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
        try SharedProfiles.resettingDiffuser()
    }

    static func misting(_ on: Bool, faults: [String] = []) -> DeviceState {
        .diffuser(DiffuserState(power: true, mist: on, faults: faults))
    }
}
