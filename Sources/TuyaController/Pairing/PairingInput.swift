import TuyaCore
import TuyaWire

/// What a user typed or imported to pair a device, checked before anything is sent. The
/// messages say what was wrong, never what the key was.
enum PairingInput {
    /// The device id, and the local key as an AES key; throws when the id is malformed, the
    /// key is not 16 characters or a named profile is not loaded.
    static func parse(
        devId: String, localKey: String, profileID: String? = nil, library: ProfileLibrary
    ) throws(PairingError) -> (DeviceID, AESKey) {
        guard let id = DeviceID(devId) else { throw .invalidDeviceID(devId) }
        let key = try key(localKey, device: devId)
        if let profileID, library.profile(id: profileID) == nil { throw .unknownProfile(profileID) }
        return (id, key)
    }

    static func key(_ text: String, device: String) throws(PairingError) -> AESKey {
        do throws(WireError) {
            return try AESKey(localKey: text)
        } catch {
            throw .invalidLocalKey(device: device, reason: "it must be 16 characters")
        }
    }
}
