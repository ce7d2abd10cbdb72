/// The first byte of every Tuya BLE frame: which key, if any, encrypts the rest
/// (protocol/TUYA.md §1.4; SDK `tuya_ble_secure.h`). A device answers with the flag
/// it received.
public enum BLESecurityFlag: UInt8, CaseIterable, Sendable, CustomStringConvertible {
    /// No encryption: the frame is `flag ‖ plaintext`, no IV. Refused by bound devices.
    case none = 0
    /// Factory auth-key based keys used for Wi-Fi provisioning; a gateway lacks the material.
    case key1 = 1
    case key2 = 2
    case key3 = 3
    /// Login key, `MD5(local_key[0:6])`: device info and frames before a session exists.
    case login = 4
    /// Session key, `MD5(local_key[0:6] ‖ srand)`: pairing and everything after it.
    case session = 5
    /// HTB's "protocol-v2 SecKey" login key, `MD5(local_key ‖ sec_key)`.
    case secKeyLogin = 14
    /// HTB's SecKey session key, `MD5(local_key ‖ sec_key ‖ srand)`.
    case secKeySession = 15

    public var isEncrypted: Bool { self != .none }

    public var description: String {
        switch self {
        case .none: "none"
        case .key1: "key1"
        case .key2: "key2"
        case .key3: "key3"
        case .login: "login"
        case .session: "session"
        case .secKeyLogin: "secKeyLogin"
        case .secKeySession: "secKeySession"
        }
    }
}
