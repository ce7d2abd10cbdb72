import SessionEngine
import TuyaCore

/// What a session leaves each device with when its end effect cannot play out: after a
/// daemon came back past a session's planned end, or a stop that skips the end effect.
/// The timeline's `finalActions`, with restore actions turned into commands from the
/// captured states.
enum SessionFinalState {
    static func commands(of timeline: SessionTimeline, captured: [DeviceID: DeviceState]) -> [DeviceID: DeviceCommand] {
        var commands: [DeviceID: DeviceCommand] = [:]
        for (device, action) in timeline.finalActions {
            switch action {
            case .none: break
            case .send(let command): commands[device] = command
            case .restoreCapturedState: commands[device] = captured[device].flatMap(restoringCommand)
            }
        }
        return commands
    }

    /// The visible fields of a captured state as a command (power, the light's mode with
    /// its values, mist and LED), as the runner restores them. `SessionEngine` keeps its
    /// own version internal, so the gateway spells it out again here.
    static func restoringCommand(_ state: DeviceState) -> DeviceCommand? {
        switch state {
        case .light(let light):
            var command = LightCommand(power: light.power)
            if light.power != false {
                command.brightness = light.brightness
                switch light.mode {
                case "colour": command.colour = light.colour
                case "scene": command.scene = light.scene
                default: command.colorTemperature = light.colorTemperature
                }
            }
            return command.isEmpty ? nil : .light(command)
        case .diffuser(let diffuser):
            let command = DiffuserCommand(
                power: diffuser.power, mist: diffuser.mist, mistMode: diffuser.mistMode, ledPower: diffuser.ledPower,
                ledBrightness: diffuser.ledBrightness, ledColour: diffuser.ledColour)
            return command.isEmpty ? nil : .diffuser(command)
        }
    }
}
