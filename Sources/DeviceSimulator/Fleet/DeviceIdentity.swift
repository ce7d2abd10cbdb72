import TuyaCore

/// Who a simulated device is: the devId and local key a gateway needs to pair it, its
/// name and its profile. What `SimulatorFleet.devicesJSON()` writes out.
public struct DeviceIdentity: Sendable, Hashable {
    public let devId: String
    public let localKey: String
    public let name: String
    public let profile: DeviceProfile

    public init(devId: String, localKey: String, name: String, profile: DeviceProfile) {
        self.devId = devId
        self.localKey = localKey
        self.name = name
        self.profile = profile
    }

    /// A devId shaped like real ones: "bf" and 20 lowercase letters and digits (22 chars).
    public static func makeDevId(using generator: inout SeededGenerator) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        return "bf" + String((0..<20).map { _ in alphabet.randomElement(using: &generator) ?? "0" })
    }

    /// A 16-character printable local key, as the Tuya cloud hands out: letters, digits
    /// and punctuation, but no quote, backslash or space, so it pastes cleanly.
    public static func makeLocalKey(using generator: inout SeededGenerator) -> String {
        let alphabet = Array(
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$%&()*+,-./:;<=>?@[]^_{|}~")
        return String((0..<16).map { _ in alphabet.randomElement(using: &generator) ?? "0" })
    }
}
