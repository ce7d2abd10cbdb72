/// A typed command for an aroma diffuser. Fields that are set are written together.
public struct DiffuserCommand: Hashable, Sendable {
    /// The master switch.
    public var power: Bool?
    /// Mist on/off (on products without a separate spray switch, the master switch).
    public var mist: Bool?
    /// A mist mode or level label from the profile (`large`, `small`, `interval`, …).
    public var mistMode: String?
    public var ledPower: Bool?
    /// 0...100 %.
    public var ledBrightness: Int?
    public var ledColour: HSVColour?
    /// A timer label from the profile (`cancel`, `1h`, …).
    public var timer: String?

    public init(
        power: Bool? = nil, mist: Bool? = nil, mistMode: String? = nil, ledPower: Bool? = nil,
        ledBrightness: Int? = nil, ledColour: HSVColour? = nil, timer: String? = nil
    ) {
        self.power = power
        self.mist = mist
        self.mistMode = mistMode
        self.ledPower = ledPower
        self.ledBrightness = ledBrightness
        self.ledColour = ledColour
        self.timer = timer
    }

    public var isEmpty: Bool {
        power == nil && mist == nil && mistMode == nil && ledPower == nil && ledBrightness == nil
            && ledColour == nil && timer == nil
    }
}
