/// What a diffuser reports, in the same units as `DiffuserCommand`.
public struct DiffuserState: Hashable, Sendable {
    public var power: Bool?
    public var mist: Bool?
    public var mistMode: String?
    public var ledPower: Bool?
    public var ledMode: String?
    public var ledBrightness: Int?
    public var ledColour: HSVColour?
    public var timer: String?
    public var minutesLeft: Int?
    /// Labels of the raised fault bits (`water_shortage`, or `bit3` for an unlabelled bit).
    public var faults: [String]

    public init(
        power: Bool? = nil, mist: Bool? = nil, mistMode: String? = nil, ledPower: Bool? = nil,
        ledMode: String? = nil, ledBrightness: Int? = nil, ledColour: HSVColour? = nil,
        timer: String? = nil, minutesLeft: Int? = nil, faults: [String] = []
    ) {
        self.power = power
        self.mist = mist
        self.mistMode = mistMode
        self.ledPower = ledPower
        self.ledMode = ledMode
        self.ledBrightness = ledBrightness
        self.ledColour = ledColour
        self.timer = timer
        self.minutesLeft = minutesLeft
        self.faults = faults
    }
}
