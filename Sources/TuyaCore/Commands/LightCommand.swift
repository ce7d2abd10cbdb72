/// A typed command for a light. Every field is optional; the fields that are set
/// are written together in one frame.
public struct LightCommand: Hashable, Sendable {
    public var power: Bool?
    /// 0...100 %, mapped onto the profile's brightness range.
    public var brightness: Int?
    /// Kelvin, mapped onto the profile's temperature range; switches to white mode.
    public var colorTemperature: Int?
    /// Switches to colour mode.
    public var colour: HSVColour?
    /// A scene name from the profile; switches to scene mode.
    public var scene: String?
    /// Seconds until the light switches itself; 0 cancels.
    public var countdown: Int?

    public init(
        power: Bool? = nil, brightness: Int? = nil, colorTemperature: Int? = nil,
        colour: HSVColour? = nil, scene: String? = nil, countdown: Int? = nil
    ) {
        self.power = power
        self.brightness = brightness
        self.colorTemperature = colorTemperature
        self.colour = colour
        self.scene = scene
        self.countdown = countdown
    }

    public var isEmpty: Bool {
        power == nil && brightness == nil && colorTemperature == nil && colour == nil && scene == nil
            && countdown == nil
    }
}
