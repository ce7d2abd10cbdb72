import TuyaWire

/// The local key a user typed or imported, checked before anything is sent. The message
/// says what was wrong, never what the key was.
enum LocalKeyInput {
    static func parse(_ text: String, device: String) throws(PairingError) -> AESKey {
        do throws(WireError) {
            return try AESKey(localKey: text)
        } catch {
            throw PairingError.invalidLocalKey(device: device, reason: "it must be 16 characters")
        }
    }
}
