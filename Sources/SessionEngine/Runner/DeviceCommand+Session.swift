import TuyaCore

extension DeviceState {
    /// The command that puts a device back into this captured state: the fields a
    /// person sees (power, the light's mode with its values, mist), not timers or faults.
    /// Nil when nothing restorable was captured. A daemon that comes back after a
    /// session's end applies it for `SessionTimeline.finalActions` entries that restore.
    public var restoringCommand: DeviceCommand? {
        switch self {
        case .light(let state):
            var command = LightCommand(power: state.power)
            if state.power != false {
                command.brightness = state.brightness
                switch state.mode {
                case "colour": command.colour = state.colour
                case "scene": command.scene = state.scene
                default: command.colorTemperature = state.colorTemperature
                }
            }
            return command.isEmpty ? nil : .light(command)
        case .diffuser(let state):
            let command = DiffuserCommand(
                power: state.power, mist: state.mist, mistMode: state.mistMode, ledPower: state.ledPower,
                ledBrightness: state.ledBrightness, ledColour: state.ledColour)
            return command.isEmpty ? nil : .diffuser(command)
        }
    }
}

extension DeviceCommand {
    /// This command with a newer one laid over it, field by field (the newer value wins),
    /// as the controller's queue coalesces writes. A newer light mode (temperature,
    /// colour or scene) clears the older command's other modes.
    func merging(_ newer: DeviceCommand) -> DeviceCommand {
        switch (self, newer) {
        case (.light(var old), .light(let new)):
            if new.colorTemperature != nil || new.colour != nil || new.scene != nil {
                old.colorTemperature = nil
                old.colour = nil
                old.scene = nil
            }
            return .light(
                LightCommand(
                    power: new.power ?? old.power, brightness: new.brightness ?? old.brightness,
                    colorTemperature: new.colorTemperature ?? old.colorTemperature, colour: new.colour ?? old.colour,
                    scene: new.scene ?? old.scene, countdown: new.countdown ?? old.countdown))
        case (.diffuser(let old), .diffuser(let new)):
            return .diffuser(
                DiffuserCommand(
                    power: new.power ?? old.power, mist: new.mist ?? old.mist, mistMode: new.mistMode ?? old.mistMode,
                    ledPower: new.ledPower ?? old.ledPower, ledBrightness: new.ledBrightness ?? old.ledBrightness,
                    ledColour: new.ledColour ?? old.ledColour, timer: new.timer ?? old.timer))
        default:
            return newer
        }
    }
}
