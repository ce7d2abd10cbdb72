import SessionEngine
import Testing
import TuyaCore

@testable import Gateway

/// The config file's `timer:` section: presets beside the built-ins, history and badges.
@Suite("Configuration: timer presets")
struct TimerConfigurationTests {
    @Test("no timer section: the built-in presets, history and badges on")
    func defaults() throws {
        let timer = try ConfigFixture.parse("base_topic: youll\n").timer
        #expect(timer.presets.map(\.name) == ["calm", "focus", "sleep"])
        #expect(timer.defaultPreset == "calm")
        #expect(timer.history && timer.badges)
        #expect(timer.maximumPause == .seconds(3600))
    }

    @Test("max_pause reaches the session service's settings")
    func maximumPause() throws {
        let timer = try ConfigFixture.parse("timer:\n  max_pause: 20m\n").timer
        #expect(timer.maximumPause == .seconds(1200))
        #expect(SessionService.Settings(timer, library: ProfileLibrary(profiles: [])).maximumPause == .seconds(1200))
        #expect(try ConfigFixture.parse("timer:\n  max_pause: off\n").timer.maximumPause == nil)
    }

    @Test("a configured preset is added (or replaces a built-in of its name), and can be the default")
    func presets() throws {
        let timer = try ConfigFixture.parse(
            """
            timer:
              history: false
              badges: false
              default_preset: evening
              presets:
                evening:
                  light: {brightness: 30, color_temp: 2400, bell: {dip_percent: 40, duration: 1500ms}, end: {effect: sunrise, brightness: 70, color_temp: 3500, duration: 2m}}
                  diffuser: {mist: true, end: fade-out}
                sleep:
                  light: {brightness: 5, end: {effect: fade-out, duration: 10m}}
                  restore_afterwards: true
            """
        ).timer
        #expect(timer.presets.map(\.name) == ["calm", "focus", "evening", "sleep"])
        #expect(timer.defaultPreset == "evening")
        #expect(!timer.history && !timer.badges)
        let evening = try #require(timer.presets.first { $0.name == "evening" })
        #expect(
            evening.light
                == LightPreset(
                    startScene: LightCommand(power: true, brightness: 30, colorTemperature: 2400),
                    bell: .dip(percentOfScene: 40, duration: .milliseconds(1500)),
                    end: .sunrise(brightness: 70, kelvin: 3500, duration: .seconds(120))))
        #expect(evening.diffuser == DiffuserPreset(startScene: DiffuserCommand(power: true, mist: true), end: .fadeOut))
        let sleep = try #require(timer.presets.last)
        #expect(sleep.diffuser == nil)
        #expect(sleep.restoreAfterwards)
        let settings = SessionService.Settings(timer, library: ProfileLibrary())
        #expect(settings.defaultPreset == "evening" && !settings.keepsHistory && !settings.awardsBadges)
    }

    @Test(
        "each bad timer value is refused with its key path and reason",
        arguments: [
            ("timer:\n  colour: red\n", "timer.colour", "unknown key"),
            ("timer:\n  default_preset: zen\n", "timer.default_preset", "no preset is named 'zen'"),
            (
                "timer:\n  presets:\n    x:\n      light: {brightness: 300}\n", "timer.presets.x.light.brightness",
                "outside"
            ),
            (
                "timer:\n  presets:\n    x:\n      light: {end: {effect: glow}}\n", "timer.presets.x.light.end.effect",
                "glow"
            ),
            (
                "timer:\n  presets:\n    x:\n      light: {end: {effect: sunrise}}\n", "timer.presets.x.light.end",
                "brightness"
            ),
            (
                "timer:\n  presets:\n    x:\n      light: {bell: {dip_percent: 40}}\n", "timer.presets.x",
                "set a brightness above 0"
            ),
            (
                "timer:\n  presets:\n    Bad Name:\n      diffuser: {mist: true}\n", "timer.presets.Bad Name",
                "not a valid name"
            ),
            ("timer:\n  history: maybe\n", "timer.history", "on or off"),
            ("timer:\n  max_pause: 10s\n", "timer.max_pause", "shorter than the minimum"),
            ("timer:\n  max_pause: on\n", "timer.max_pause", "duration"),
            ("timer:\n  max_pause: 200h\n", "timer.max_pause", "longer than the maximum 604800 s"),
        ])
    func refused(yaml: String, keyPath: String, reason: String) throws {
        let error = try #require(ConfigFixture.error(yaml))
        #expect(error.keyPath == keyPath, "\(error)")
        #expect(error.reason.contains(reason), "\(error)")
    }
}
