import SessionEngine
import TuyaCore

extension GatewayConfiguration {
    /// `timer:` in the config file: presets beside the built-ins, and whether history and
    /// badges are kept.
    ///
    /// ```yaml
    /// timer:
    ///   history: true          # session/history and `timer history`
    ///   badges: true           # badge_earned
    ///   max_pause: 1h          # a session paused longer is stopped, its end state applied (off: never)
    ///   default_preset: calm
    ///   presets:
    ///     evening:
    ///       light: {brightness: 30, color_temp: 2400, bell: {dip_percent: 40, duration: 2s},
    ///               end: {effect: sunrise, brightness: 80, color_temp: 4000, duration: 60s}}
    ///       diffuser: {mist: true, end: fade-out}
    ///       restore_afterwards: false
    /// ```
    public struct Timer: Hashable, Sendable {
        /// The built-ins, then the configured ones (a configured preset replaces a
        /// built-in of the same name).
        public var presets: [SessionPreset] = SessionPreset.builtIns
        public var defaultPreset = "calm"
        public var history = true
        public var badges = true
        /// How long a session may stay paused before it is stopped (1 min to 7 days); nil
        /// (`off`) for no limit.
        public var maximumPause: Duration? = SessionService.Settings.defaultMaximumPause

        public init() {}
    }
}

extension SessionService.Settings {
    /// The session settings the config file's `timer:` section asks for, with ramps stepped
    /// no faster than each device's profile allows frames.
    public init(_ timer: GatewayConfiguration.Timer, library: ProfileLibrary) {
        self.init(
            presets: timer.presets, defaultPreset: timer.defaultPreset, awardsBadges: timer.badges,
            keepsHistory: timer.history,
            frameGap: { device in
                library.profile(id: device.profileID).map { .milliseconds(max(1, $0.frameGapMilliseconds)) }
            }, maximumPause: timer.maximumPause)
    }
}

extension ConfigurationDraft {
    static let timerKeys = ["history", "badges", "max_pause", "default_preset", "presets"]

    /// Reads `timer:`; every error names the key path and line.
    mutating func readTimer(_ node: ProfileNode) throws(ProfileError) {
        let section = try node.keys(Self.timerKeys)
        var timer = configuration.timer
        if let value = section.optional("history") { timer.history = try value.switchValue() }
        if let value = section.optional("badges") { timer.badges = try value.switchValue() }
        if let value = section.optional("max_pause") {
            timer.maximumPause =
                if (try? value.switchValue()) == false {
                    nil
                } else {
                    try value.duration(minimum: .seconds(60), maximum: .seconds(7 * 24 * 3600))
                }
        }
        if let presets = section.optional("presets") {
            for (name, value) in try presets.namedEntries() {
                let preset = try Self.preset(named: name, value)
                timer.presets.removeAll { $0.name == name }
                timer.presets.append(preset)
            }
        }
        if let value = section.optional("default_preset") {
            let name = try value.string()
            guard timer.presets.contains(where: { $0.name == name }) else {
                throw value.error(
                    "no preset is named '\(name.prefix(40))'; known: \(timer.presets.map(\.name).joined(separator: ", "))"
                )
            }
            timer.defaultPreset = name
        }
        configuration.timer = timer
        origins[node.path] = ConfigurationOrigin(source: node.source, line: node.line)
    }

    static func preset(named name: String, _ node: ProfileNode) throws(ProfileError) -> SessionPreset {
        let fields = try node.keys(["light", "diffuser", "restore_afterwards"])
        let preset = SessionPreset(
            name: name, light: try fields.optional("light").map(light),
            diffuser: try fields.optional("diffuser").map(diffuser),
            restoreAfterwards: try fields.optional("restore_afterwards")?.switchValue() ?? false)
        do {
            try preset.validate()
        } catch {
            throw node.error(error.description)
        }
        return preset
    }

    private static func light(_ node: ProfileNode) throws(ProfileError) -> LightPreset {
        let fields = try node.keys(["brightness", "color_temp", "bell", "end"])
        var scene = LightCommand(power: true)
        scene.brightness = try fields.optional("brightness")?.int(in: 1...100, what: "brightness")
        scene.colorTemperature = try fields.optional("color_temp")?.int(in: 1000...10_000, what: "colour temperature")
        var bell = LightPreset.Bell.none
        if let bellNode = fields.optional("bell") {
            let bellFields = try bellNode.keys(["dip_percent", "duration"])
            bell = .dip(
                percentOfScene: try bellFields.required("dip_percent").int(in: 0...90, what: "dip"),
                duration: try bellFields.optional("duration")?.duration(maximum: .seconds(30)) ?? .seconds(2))
        }
        var end = LightPreset.EndEffect.none
        if let endNode = fields.optional("end") {
            let endFields = try endNode.keys(["effect", "brightness", "color_temp", "duration"])
            let effectNode = try endFields.required("effect")
            switch try effectNode.choice(["sunrise", "fade-out", "restore", "none"], what: "end effect") {
            case "sunrise":
                end = .sunrise(
                    brightness: try endFields.required("brightness").int(in: 1...100, what: "brightness"),
                    kelvin: try endFields.required("color_temp").int(in: 1000...10_000, what: "colour temperature"),
                    duration: try endFields.optional("duration")?.duration(maximum: .seconds(3600)) ?? .seconds(60))
            case "fade-out":
                end = .fadeOut(
                    duration: try endFields.optional("duration")?.duration(maximum: .seconds(3600)) ?? .seconds(60))
            case "restore": end = .restore
            default: end = .none
            }
        }
        return LightPreset(startScene: scene, bell: bell, end: end)
    }

    private static func diffuser(_ node: ProfileNode) throws(ProfileError) -> DiffuserPreset {
        let fields = try node.keys(["mist", "end"])
        let mist = try fields.optional("mist")?.switchValue() ?? true
        let end: DiffuserPreset.EndEffect =
            switch try fields.optional("end")?.choice(["fade-out", "restore", "none"], what: "end effect") {
            case "fade-out": .fadeOut
            case "restore": .restore
            default: .none
            }
        return DiffuserPreset(startScene: DiffuserCommand(power: true, mist: mist), end: end)
    }
}
