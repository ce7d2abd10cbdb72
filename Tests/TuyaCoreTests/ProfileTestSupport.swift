import Foundation
import Testing

@testable import TuyaCore
import YoullTestSupport

/// Shared fixtures for the profile tests: a small valid profile to mutate, and helpers
/// that check a rejection names the right key path and reason.
enum ProfileFixture {
    /// The repository's `devices/` folder, found from this file's path.
    static var devicesDirectory: URL {
        Repository.devicesDirectory
    }

    /// A valid diffuser profile using most of the schema; tests replace one piece of it.
    static let base = """
        id: test-diffuser
        name: Test diffuser
        category: xxj
        product_ids: [testpid1]
        transports: [mqtt]
        frame_gap_ms: 250
        data_points:
          - { id: 1, code: switch, type: bool }
          - { id: 2, code: switch_spray, type: bool }
          - { id: 3, code: mode, type: enum, values: [small, large] }
          - { id: 8, code: bright_value, type: value, min: 0, max: 255 }
          - { id: 10, code: colour_data, type: string, format: hsv16 }
          - { id: 11, code: fault, type: bitmap }
          - { id: 23, code: temp_value, type: value, min: 0, max: 1000 }
          - { id: 101, code: scene, type: enum, values: [night, read] }
        capabilities:
          power: switch
          mist: 2
          mist_mode: mode
          led_brightness: bright_value
          led_colour: colour_data
          color_temp: { dp: temp_value, kelvin_min: 2700, kelvin_max: 6500 }
          fault: fault
          scene: scene
        scenes:
          bedtime: night
        faults:
          - { bit: 0, label: water_shortage }
        maintenance:
          - type: refill
            title: Refill the tank
            body: The tank is empty.
            triggers: [{ fault: water_shortage }]
          - type: clean
            title: Clean the tank
            body: Residue weakens the mist.
            steps: [Unplug it., Wipe the plate.]
            triggers: [{ usage_hours: 40, of: mist }, { days: 30 }]

        """

    /// `base` with `old` replaced by `new`; records an issue if `old` is not in it,
    /// so a typo in a test cannot turn into a test that passes for the wrong reason.
    static func replacing(
        _ old: String, with new: String, in text: String = base, sourceLocation: SourceLocation = #_sourceLocation
    ) -> String {
        if !text.contains(old) {
            Issue.record("fixture does not contain \(old)", sourceLocation: sourceLocation)
        }
        return text.replacingOccurrences(of: old, with: new)
    }

    /// Parses `yaml`, expects a rejection, and checks its key path and reason.
    @discardableResult
    static func expectRejection(
        _ yaml: String, keyPath: String, reason: String, sourceLocation: SourceLocation = #_sourceLocation
    ) -> ProfileError? {
        do throws(ProfileError) {
            let profile = try ProfileLoader.parse(yaml: yaml, source: "devices/test.yaml")
            Issue.record("expected a rejection at \(keyPath), loaded \(profile.id)", sourceLocation: sourceLocation)
            return nil
        } catch {
            #expect(error.source == "devices/test.yaml", sourceLocation: sourceLocation)
            #expect(error.keyPath == keyPath, "\(error)", sourceLocation: sourceLocation)
            #expect(error.reason.contains(reason), "\(error)", sourceLocation: sourceLocation)
            return error
        }
    }
}
