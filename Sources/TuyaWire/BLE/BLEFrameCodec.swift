/// Command frame ⇄ encrypted frame in one step, picking the key from the security
/// flag (protocol/TUYA.md §1.4, §1.5). Fragmentation is separate (`BLEFragmenter`,
/// `BLEReassembler`).
public enum BLEFrameCodec {
    /// `flag ‖ IV ‖ AES-CBC(key, IV, zero-padded frame)`; `key` is ignored for `.none`.
    public static func encrypt(
        _ frame: BLECommandFrame, flag: BLESecurityFlag, key: AESKey?, iv: [UInt8]
    ) throws(WireError) -> [UInt8] {
        try BLESecurityLayer(sealing: frame.encoded, flag: flag, key: key, iv: iv).encoded
    }

    /// Encrypts with the key `keys` holds for `flag` and an IV from `ivSource`.
    public static func encrypt(
        _ frame: BLECommandFrame, flag: BLESecurityFlag, keys: BLEKeys, ivSource: inout some IVSource
    ) throws(WireError) -> [UInt8] {
        let key = flag.isEncrypted ? try keys.key(for: flag) : nil
        return try BLESecurityLayer(sealing: frame.encoded, flag: flag, key: key, ivSource: &ivSource).encoded
    }

    /// Decrypts a reassembled frame with the login or session key its flag names.
    ///
    /// Errors: `.unknownSecurityFlag`, `.truncated`/`.malformed` for a broken envelope,
    /// `.invalidKey` when `keys` lacks the key (e.g. no srand yet), `.keyMismatch` when
    /// the key is wrong, `.checksumMismatch` when the frame was damaged. For an
    /// unencrypted frame no key is involved, so a bad length is `.malformed`.
    public static func decrypt(
        _ bytes: [UInt8], keys: BLEKeys
    ) throws(WireError) -> (flag: BLESecurityFlag, frame: BLECommandFrame) {
        let layer = try BLESecurityLayer(bytes: bytes)
        let key = layer.flag.isEncrypted ? try keys.key(for: layer.flag) : nil
        let plaintext = try layer.open(key: key)
        do throws(WireError) {
            return (layer.flag, try BLECommandFrame(bytes: plaintext))
        } catch {
            if case .keyMismatch(let detail) = error, !layer.flag.isEncrypted {
                throw .malformed("unencrypted \(detail)")
            }
            throw error
        }
    }
}
