import SessionEngine
import Testing
import TuyaCore
import YoullTestSupport

/// Every built-in preset against every shipped device profile: each command a session
/// would send, fitted to the device, is one the device's profile can write, so no cue of a
/// shipped preset is ever refused by a shipped device.
@Suite("Built-in presets on the shipped profiles")
struct PresetsOnShippedProfilesTests {
    static let session = ResolvedSession(
        warmUp: .zero, stages: [SessionStage(name: "sit", minutes: 10, bellEveryMinutes: 5)], isOpenEnded: false)

    @Test(
        "every command of every built-in preset, fitted, maps onto every shipped profile",
        arguments: SessionPreset.builtIns.map(\.name))
    func presetFitsEveryProfile(_ presetName: String) throws {
        let preset = try #require(SessionPreset.builtIn(named: presetName))
        let profiles = Repository.shippedProfiles.all
        #expect(profiles.count >= 5)
        for profile in profiles {
            let device = TuyaDevice(
                id: DeviceID("bf0000000000000000demo")!, name: "device", profileID: profile.id,
                category: profile.category, transport: .mqtt)
            let timeline = try SessionPlanner().plan(Self.session, preset: preset, devices: [device])
            let mapper = DataPointMapper(profile: profile)
            for cue in timeline.cues {
                guard case .send(let command) = cue.action else { continue }
                let fitted = profile.fitting(command).command
                #expect(throws: Never.self, "\(presetName) \(cue.kind) on \(profile.id)") {
                    try mapper.writes(for: fitted)
                }
            }
        }
    }

    @Test("the sleep preset's 2200 K is shown at the bulb's warmest end, not refused")
    func sleepKelvinIsClamped() throws {
        let profile = try #require(Repository.shippedProfiles.profile(id: "rgbcct-bulb-v2"))
        let warmest = try #require(profile.capabilities[.colorTemperature]?.kelvin?.lowerBound)
        let (fitted, adjustments) = profile.fitting(.light(LightCommand(brightness: 20, colorTemperature: 2200)))
        #expect(fitted == .light(LightCommand(brightness: 20, colorTemperature: warmest)))
        #expect(adjustments == ["color_temp 2200 K shown as \(warmest) K, the nearest this light can show"])
        // Unfitted, the profile refuses it, naming the range: what a person's own `set` gets.
        #expect(throws: MappingError.self) {
            try DataPointMapper(profile: profile).writes(for: .light(LightCommand(colorTemperature: 2200)))
        }
    }

}
