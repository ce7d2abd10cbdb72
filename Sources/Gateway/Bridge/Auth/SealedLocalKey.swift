import Crypto
import Foundation

/// A local key sealed to the gateway's X25519 public key with HPKE (RFC 9180, base mode,
/// DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20-Poly1305), so it never crosses the broker
/// in clear. Sent as `"sealed_local_key": "hpke1:<base64 encapsulated key>:<base64 ciphertext>"`
/// in place of `local_key`; the associated data binds it to the verb and the device id, so a
/// sealed key cannot be moved to another device's request.
public enum SealedLocalKey {
    static let field = "sealed_local_key"
    /// The verbs that carry a local key.
    static let verbs: Set<String> = ["device/add", "device/rekey"]
    static let prefix = "hpke1:"
    static let info = Data("youll-devices local key v1".utf8)
    static let ciphersuite = HPKE.Ciphersuite.Curve25519_SHA256_ChachaPoly

    static func associatedData(verb: String, device: String) -> Data {
        Data("\(verb)\n\(device)".utf8)
    }

    /// Seals `key` for `verb` on `device` to `publicKey` (base64 of the raw 32 bytes, as `bridge/info` has it).
    public static func seal(
        _ key: String, verb: String, device: String, to publicKey: String
    ) throws(SealingError) -> String {
        guard let raw = Data(base64Encoded: publicKey),
            let recipient = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: raw)
        else {
            throw SealingError("bridge/info's public_key is not an X25519 public key (base64 of 32 bytes)")
        }
        do {
            var sender = try HPKE.Sender(recipientKey: recipient, ciphersuite: ciphersuite, info: info)
            let sealed = try sender.seal(Data(key.utf8), authenticating: associatedData(verb: verb, device: device))
            return prefix + sender.encapsulatedKey.base64EncodedString() + ":" + sealed.base64EncodedString()
        } catch {
            throw SealingError("sealing the local key failed: \(error)")
        }
    }

    /// Opens a sealed key; the error names the field and why, never a key.
    static func open(
        _ text: String, verb: String, device: String, with privateKey: Curve25519.KeyAgreement.PrivateKey
    ) throws(BridgePayloadError) -> String {
        let parts =
            text.utf8.count <= 512 && text.hasPrefix(prefix)
            ? text.dropFirst(prefix.count).split(separator: ":", omittingEmptySubsequences: false) : []
        guard parts.count == 2, let encapsulated = Data(base64Encoded: String(parts[0])),
            let ciphertext = Data(base64Encoded: String(parts[1]))
        else {
            throw BridgePayloadError(
                field: field, reason: "expected \"hpke1:<base64 encapsulated key>:<base64 ciphertext>\"")
        }
        do {
            var recipient = try HPKE.Recipient(
                privateKey: privateKey, ciphersuite: ciphersuite, info: info, encapsulatedKey: encapsulated)
            let opened = try recipient.open(ciphertext, authenticating: associatedData(verb: verb, device: device))
            guard let key = String(data: opened, encoding: .utf8) else {
                throw BridgePayloadError(field: field, reason: "the opened key is not text")
            }
            return key
        } catch let error as BridgePayloadError {
            throw error
        } catch {
            throw BridgePayloadError(
                field: field,
                reason: "cannot be opened with this gateway's key (sealed to another gateway's bridge/info key, "
                    + "for another device or verb, or altered)")
        }
    }
}

/// Why a local key could not be sealed.
public struct SealingError: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
