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
            case .restoreCapturedState: commands[device] = captured[device]?.restoringCommand
            }
        }
        return commands
    }
}
