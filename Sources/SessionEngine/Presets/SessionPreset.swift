import TuyaCore

/// How a session looks in the room: per device role, a start scene, a bell effect and an
/// end effect; and whether every device goes back to its captured state afterwards.
/// Built-ins are `calm`, `focus` and `sleep`; the gateway loads more from its config file.
public struct SessionPreset: Hashable, Sendable {
    public var name: String
    /// Nil: lights are left alone.
    public var light: LightPreset?
    /// Nil: diffusers are left alone.
    public var diffuser: DiffuserPreset?
    /// After the end effect, every device returns to the state it confirmed at the start.
    public var restoreAfterwards: Bool

    public init(name: String, light: LightPreset?, diffuser: DiffuserPreset?, restoreAfterwards: Bool = false) {
        self.name = name
        self.light = light
        self.diffuser = diffuser
        self.restoreAfterwards = restoreAfterwards
    }

    /// Preset names travel in `youll://timer?preset=<p>` and `--preset P`: 1–32 lower-case
    /// letters, digits, `-` and `_`.
    public func validate() throws(SessionError) {
        guard (1...32).contains(name.utf8.count),
            name.utf8.allSatisfy({
                (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D || $0 == 0x5F
            })
        else {
            throw .invalidName(field: "preset.name", name: name, reason: "use 1–32 lower-case letters, digits, - or _")
        }
        try light?.validate(field: "\(name).light")
        try diffuser?.validate(field: "\(name).diffuser")
    }

    /// Whether the session needs each device's state captured at the start.
    var restores: (light: Bool, diffuser: Bool) {
        (
            light != nil && (restoreAfterwards || light?.end == .restore),
            diffuser != nil && (restoreAfterwards || diffuser?.end == .restore)
        )
    }
}

extension SessionPreset {
    /// Warm, low light and mist; bells are a soft dip; a one-minute sunrise to bright, neutral light.
    public static let calm = SessionPreset(
        name: "calm",
        light: LightPreset(
            startScene: LightCommand(power: true, brightness: 35, colorTemperature: 2700),
            bell: .dip(percentOfScene: 40, duration: .seconds(2)),
            end: .sunrise(brightness: 80, kelvin: 4000, duration: .seconds(60))),
        diffuser: DiffuserPreset(startScene: DiffuserCommand(power: true, mist: true), end: .fadeOut))

    /// Bright, cool light and mist; the room goes back to how it was at the end.
    public static let focus = SessionPreset(
        name: "focus",
        light: LightPreset(
            startScene: LightCommand(power: true, brightness: 80, colorTemperature: 5000),
            bell: .dip(percentOfScene: 50, duration: .seconds(2)),
            end: .restore),
        diffuser: DiffuserPreset(startScene: DiffuserCommand(power: true, mist: true), end: .restore))

    /// Very dim, very warm light with no bell pulse, fading to off over five minutes; the
    /// diffuser keeps misting.
    public static let sleep = SessionPreset(
        name: "sleep",
        light: LightPreset(
            startScene: LightCommand(power: true, brightness: 15, colorTemperature: 2200),
            bell: .none,
            end: .fadeOut(duration: .seconds(300))),
        diffuser: DiffuserPreset(startScene: DiffuserCommand(power: true, mist: true), end: .none))

    public static let builtIns: [SessionPreset] = [.calm, .focus, .sleep]

    public static func builtIn(named name: String) -> SessionPreset? { builtIns.first { $0.name == name } }
}
