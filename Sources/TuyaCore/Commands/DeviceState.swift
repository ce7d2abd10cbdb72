/// The typed state of any device.
public enum DeviceState: Hashable, Sendable {
    case light(LightState)
    case diffuser(DiffuserState)
}
