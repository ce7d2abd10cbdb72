import TuyaCore

/// What a preset does with every diffuser in the session. Diffusers have no bell: a
/// change of mist is neither quick nor quiet enough to mark an interval.
public struct DiffuserPreset: Hashable, Sendable {
    /// How the diffuser leaves the session.
    public enum EndEffect: Hashable, Sendable {
        case none
        /// Mist and power off at the end (mist cannot be dimmed, so there is no ramp).
        case fadeOut
        /// Back to the state the diffuser confirmed when the session started.
        case restore
    }

    public var startScene: DiffuserCommand
    public var end: EndEffect

    public init(startScene: DiffuserCommand, end: EndEffect = .none) {
        self.startScene = startScene
        self.end = end
    }

    func validate(field: String) throws(SessionError) {
        if let brightness = startScene.ledBrightness {
            try check(brightness, in: 0...100, field: "\(field).startScene.ledBrightness")
        }
    }
}
