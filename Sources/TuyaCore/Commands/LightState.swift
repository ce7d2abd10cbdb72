/// What a light reports, in the same units as `LightCommand`. A field is nil when the
/// product has no such capability or has not reported it yet.
public struct LightState: Hashable, Sendable {
    public var power: Bool?
    /// `white`, `colour`, `scene`, `music`, … as the profile names them.
    public var mode: String?
    public var brightness: Int?
    public var colorTemperature: Int?
    public var colour: HSVColour?
    /// The profile's scene name when the reported scene value matches one.
    public var scene: String?
    public var countdown: Int?

    public init(
        power: Bool? = nil, mode: String? = nil, brightness: Int? = nil, colorTemperature: Int? = nil,
        colour: HSVColour? = nil, scene: String? = nil, countdown: Int? = nil
    ) {
        self.power = power
        self.mode = mode
        self.brightness = brightness
        self.colorTemperature = colorTemperature
        self.colour = colour
        self.scene = scene
        self.countdown = countdown
    }
}
