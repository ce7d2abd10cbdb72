import CLibCrypto
import Synchronization

/// The AES-128 block-mode contexts of one key (`AESKey`), each made on its first use and kept
/// for every later one: BLE seals and opens every frame under one session key in CBC, Tuya
/// MQTT "2.2" and LAN discovery use ECB under one key for every message. swift-crypto's
/// one-shot calls expand the key schedule again on every call; here a frame costs one call
/// into libcrypto (see CLibCrypto). A key used once (an advertisement's) costs what a
/// one-shot call does.
///
/// A CBC context carries its IV and chaining state between the calls of one frame, so every
/// context is used only under the lock.
final class AESContexts: Sendable {
    enum Mode: Int, CaseIterable {
        case cbcEncrypt, cbcDecrypt, ecbEncrypt, ecbDecrypt

        fileprivate var type: OpaquePointer? {
            switch self {
            case .cbcEncrypt, .cbcDecrypt: EVP_aes_128_cbc()
            case .ecbEncrypt, .ecbDecrypt: EVP_aes_128_ecb()
            }
        }

        fileprivate var encrypts: Bool { self == .cbcEncrypt || self == .ecbEncrypt }
    }

    private let key: [UInt8]
    /// The contexts made so far, by `Mode.rawValue`, as addresses (0: not made yet): plain
    /// numbers, which a `Mutex` holds as Sendable values. Freed (which wipes their key
    /// schedules) with the last copy of the key.
    private let made = Mutex<[UInt]>(Array(repeating: 0, count: Mode.allCases.count))

    init(key: [UInt8]) {
        self.key = key
    }

    deinit {
        made.withLock { contexts in
            for context in contexts { EVP_CIPHER_CTX_free(OpaquePointer(bitPattern: context)) }
        }
    }

    /// Runs `mode` over `input` (whole blocks) into the array returned; `iv` for the CBC modes.
    /// A refused decryption leaves nothing of what it wrote behind.
    func run(_ mode: Mode, iv: [UInt8]? = nil, _ input: ArraySlice<UInt8>) throws(WireError) -> [UInt8] {
        let count = input.count
        guard count % 16 == 0 else { throw .malformed("AES input of \(count) bytes is not whole 16-byte blocks") }
        guard count > 0 else { return [] }
        return try Self.plaintext(count: count) { out throws(WireError) in
            try input.withUnsafeBufferPointer { input throws(WireError) in
                try run(mode, iv: iv, from: input.baseAddress!, to: out.baseAddress!, count: count)
            }
            return count
        }
    }

    /// Runs `mode` over the whole blocks of `buffer` where they are.
    func run(_ mode: Mode, iv: [UInt8]? = nil, inPlace buffer: UnsafeMutableBufferPointer<UInt8>) throws(WireError) {
        guard buffer.count % 16 == 0 else {
            throw .badPadding("AES input of \(buffer.count) bytes is not whole blocks")
        }
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        try run(mode, iv: iv, from: base, to: base, count: buffer.count)
    }

    private func run(
        _ mode: Mode, iv: [UInt8]?, from input: UnsafePointer<UInt8>, to output: UnsafeMutablePointer<UInt8>,
        count: Int
    ) throws(WireError) {
        guard let length = Int32(exactly: count) else {
            throw .lengthOutOfRange(field: "AES input", value: count, limit: Int(Int32.max))
        }
        let chains = mode == .cbcEncrypt || mode == .cbcDecrypt
        if chains, iv?.count != 16 { throw .invalidKey("an AES-CBC IV is 16 bytes, got \(iv?.count ?? 0)") }
        let done = try made.withLock { contexts throws(WireError) in
            let context: OpaquePointer
            if let kept = OpaquePointer(bitPattern: contexts[mode.rawValue]) {
                context = kept
            } else {
                context = try makeCipherContext(mode.type, key: key, encrypt: mode.encrypts, blocks: true)
                contexts[mode.rawValue] = UInt(bitPattern: context)
            }
            if chains, let iv { return youll_cbc(context, iv, output, input, length) }
            return youll_ecb(context, output, input, length)
        }
        guard done == 1 else { throw .malformed("AES-\(chains ? "CBC" : "ECB") failed") }
    }

    /// An array of `count` bytes written by `decrypt`, which returns how many of them to keep.
    /// When `decrypt` throws, whatever it wrote is zeroed before the memory is given back:
    /// nothing decrypted outlives a refused frame, not even in freed memory.
    static func plaintext(
        count: Int, _ decrypt: (UnsafeMutableBufferPointer<UInt8>) throws(WireError) -> Int
    ) throws(WireError) -> [UInt8] {
        var failure: WireError?
        let plaintext = [UInt8](unsafeUninitializedCapacity: count) { out, initialised in
            initialised = 0
            do throws(WireError) {
                initialised = try decrypt(out)
            } catch {
                out.update(repeating: 0)
                failure = error
            }
        }
        if let failure { throw failure }
        return plaintext
    }
}

/// A libcrypto context keyed for one direction. A block mode (`blocks`) gets padding off, so
/// that decryption hands back every block at once; GCM has no padding, and setting it would
/// be applied again (as a parameter lookup) each time a frame's nonce is set.
func makeCipherContext(
    _ type: OpaquePointer?, key: [UInt8], encrypt: Bool, blocks: Bool
) throws(WireError) -> OpaquePointer {
    guard let context = EVP_CIPHER_CTX_new() else { throw .invalidKey("libcrypto could not make a cipher context") }
    guard EVP_CipherInit_ex(context, type, nil, key, nil, encrypt ? 1 : 0) == 1,
        !blocks || EVP_CIPHER_CTX_set_padding(context, 0) == 1
    else {
        EVP_CIPHER_CTX_free(context)
        ERR_clear_error()
        throw .invalidKey("libcrypto could not key AES-128")
    }
    return context
}
