import Testing
import TuyaCore
import YoullTestSupport

/// The labels `devices --json` and Home Assistant show for an enum (`off`, `1 h`) are accepted
/// back in commands, on every shipped profile.
@Suite("Enum labels in commands")
struct TimerLabelTests {
    let modern = Repository.shippedProfiles.profile(id: "aroma-diffuser-modern")

    @Test("timer=off and timer='1 h' write the values the labels stand for")
    func shownLabels() throws {
        let profile = try #require(modern)
        let mapper = DataPointMapper(profile: profile)
        let timer = try #require(profile.dataPoint(for: .timer))
        for (text, value) in [
            ("off", "cancel"), ("1 h", "1"), ("1h", "1"), ("6 H", "6"), ("cancel", "cancel"), ("3", "3"),
        ] {
            let writes = try mapper.writes(for: .diffuser(DiffuserCommand(timer: text)))
            #expect(writes == [timer.id: .enumeration(value)], "\(text)")
        }
    }

    @Test("a timer that is neither a value nor a label is refused listing the labels people see")
    func unknownLabel() throws {
        let profile = try #require(modern)
        let mapper = DataPointMapper(profile: profile)
        #expect(
            throws: MappingError.unknownLabel(
                field: "timer", label: "2 h", valid: ["off", "1 h", "3 h", "6 h"], profile: profile.id)
        ) {
            try mapper.writes(for: .diffuser(DiffuserCommand(timer: "2 h")))
        }
    }

    @Test("every label of every shipped diffuser timer and mist mode is accepted as a command")
    func everyShippedLabel() throws {
        var checked = 0
        for profile in Repository.shippedProfiles.all {
            let mapper = DataPointMapper(profile: profile)
            for capability in [Capability.timer, .mistMode] {
                guard let spec = profile.dataPoint(for: capability), spec.access != .readOnly else { continue }
                for (value, label) in spec.displayedValues {
                    let command =
                        capability == .timer ? DiffuserCommand(timer: label) : DiffuserCommand(mistMode: label)
                    let writes = try mapper.writes(for: .diffuser(command))
                    #expect(writes[spec.id] == .enumeration(value), "\(profile.id) \(capability) '\(label)'")
                    checked += 1
                }
            }
        }
        #expect(checked > 4)
    }
}
