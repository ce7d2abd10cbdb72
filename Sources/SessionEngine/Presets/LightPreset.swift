import TuyaCore

/// What a preset does with every light in the session.
public struct LightPreset: Hashable, Sendable {
    /// How an interval bell shows on a light.
    public enum Bell: Hashable, Sendable {
        case none
        /// Dims to `percentOfScene` % of the start scene's brightness, then returns to it
        /// after `duration` (about 2 s: a soft pulse, not a flash).
        case dip(percentOfScene: Int, duration: Duration)
    }

    /// How the light leaves the session.
    public enum EndEffect: Hashable, Sendable {
        /// Leaves the light as the session had it.
        case none
        /// Ramps brightness and colour temperature from the start scene to a target.
        case sunrise(brightness: Int, kelvin: Int, duration: Duration)
        /// Ramps brightness down, then switches the light off.
        case fadeOut(duration: Duration)
        /// Goes back to the state the light confirmed when the session started.
        case restore
    }

    public var startScene: LightCommand
    public var bell: Bell
    public var end: EndEffect

    public init(startScene: LightCommand, bell: Bell = .none, end: EndEffect = .none) {
        self.startScene = startScene
        self.bell = bell
        self.end = end
    }

    static let brightnessRange = 1...100
    static let kelvinRange = 1000...10_000

    func validate(field: String) throws(SessionError) {
        if let brightness = startScene.brightness {
            try check(brightness, in: 0...100, field: "\(field).startScene.brightness")
        }
        if let kelvin = startScene.colorTemperature {
            try check(kelvin, in: Self.kelvinRange, field: "\(field).startScene.colorTemperature")
        }
        switch bell {
        case .none: break
        case .dip(let percent, let duration):
            try check(percent, in: 0...90, field: "\(field).bell.percentOfScene")
            guard duration > .zero else { throw .nonPositiveDuration(field: "\(field).bell.duration", value: duration) }
            try requireSceneBrightness(field: field, for: "the bell dip")
        }
        switch end {
        case .none, .restore: break
        case .sunrise(let brightness, let kelvin, let duration):
            try check(brightness, in: Self.brightnessRange, field: "\(field).end.brightness")
            try check(kelvin, in: Self.kelvinRange, field: "\(field).end.kelvin")
            guard duration > .zero else { throw .nonPositiveDuration(field: "\(field).end.duration", value: duration) }
            try requireSceneBrightness(field: field, for: "the sunrise")
        case .fadeOut(let duration):
            guard duration > .zero else { throw .nonPositiveDuration(field: "\(field).end.duration", value: duration) }
            try requireSceneBrightness(field: field, for: "the fade-out")
        }
    }

    /// Dips and ramps start from the scene's brightness, so the scene must set one.
    private func requireSceneBrightness(field: String, for effect: String) throws(SessionError) {
        guard let brightness = startScene.brightness, brightness > 0 else {
            throw .unsupported(
                field: "\(field).startScene.brightness", reason: "\(effect) starts from it; set a brightness above 0")
        }
    }
}

func check(_ value: Int, in range: ClosedRange<Int>, field: String) throws(SessionError) {
    guard range.contains(value) else { throw .valueOutOfRange(field: field, value: value, range: range) }
}
