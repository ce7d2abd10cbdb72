/// A typed command for any device the gateway drives.
public enum DeviceCommand: Hashable, Sendable {
    case light(LightCommand)
    case diffuser(DiffuserCommand)
}
