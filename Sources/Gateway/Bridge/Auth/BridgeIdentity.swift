import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the daemon keeps in its state directory to secure the bridge, each created on the
/// first start, with mode 0600:
/// - `bridge-token` (or `bridge.token_file`): the request-signing token (`BridgeAuthentication`);
/// - `bridge-key`: the X25519 private key local keys are sealed to (`SealedLocalKey`); its public
///   half is in `bridge/info`;
/// - `client-id`: the per-install suffix of the MQTT client ids, so another client using the
///   well-known `youll-devices-<base>` id cannot take the bridge's session over.
struct BridgeIdentity: Sendable {
    let token: BridgeToken
    let privateKey: Curve25519.KeyAgreement.PrivateKey
    let clientIDSuffix: String
    /// What was created or repaired, for the log (never a secret).
    let notices: [String]

    static let keyFile = "bridge-key"
    static let clientIDFile = "client-id"

    /// The public key as `bridge/info` publishes it: base64 of the raw 32 bytes.
    var publicKeyText: String { privateKey.publicKey.rawRepresentation.base64EncodedString() }

    static func loadOrCreate(stateDirectory: URL, tokenFile: String) throws(BridgeIdentityError) -> BridgeIdentity {
        var notices: [String] = []
        let token = try secret(at: tokenFile, what: "bridge token", notices: &notices) {
            BridgeToken.random().fileText
        } parse: {
            BridgeToken(text: $0)
        }
        let keyPath = stateDirectory.appendingPathComponent(keyFile).path
        let privateKey = try secret(at: keyPath, what: "bridge key", notices: &notices) {
            Hex.string(Curve25519.KeyAgreement.PrivateKey().rawRepresentation) + "\n"
        } parse: { text in
            Hex.bytes(text.trimmingCharacters(in: .whitespacesAndNewlines)).flatMap {
                try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: $0)
            }
        }
        let suffixPath = stateDirectory.appendingPathComponent(clientIDFile).path
        let suffix = try secret(at: suffixPath, what: "client id suffix", notices: &notices) {
            Hex.string((0..<4).map { _ in UInt8.random(in: .min ... .max) }) + "\n"
        } parse: { text in
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            return trimmed.utf8.count == 8 && Hex.bytes(trimmed) != nil ? trimmed : nil
        }
        return BridgeIdentity(token: token, privateKey: privateKey, clientIDSuffix: suffix, notices: notices)
    }

    /// Reads the file at `path`, creating it (0600, atomically) with `make()` when missing; a
    /// file that others may read is made 0600.
    private static func secret<Value>(
        at path: String, what: String, notices: inout [String], make: () -> String, parse: (String) -> Value?
    ) throws(BridgeIdentityError) -> Value {
        if !FileManager.default.fileExists(atPath: path) {
            try create(path, text: make(), what: what)
            notices.append("created the \(what) in \(path) (mode 0600)")
        }
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & 0o077 != 0 {
            guard chmod(path, 0o600) == 0 else {
                throw BridgeIdentityError("\(path): the \(what) is readable by others and cannot be made 0600")
            }
            notices.append("\(path) was readable by others; it is now mode 0600")
        }
        guard let data = FileManager.default.contents(atPath: path), data.count <= 4096 else {
            throw BridgeIdentityError("\(path): the \(what) cannot be read")
        }
        guard let value = parse(String(decoding: data, as: UTF8.self)) else {
            throw BridgeIdentityError(
                "\(path) does not hold a valid \(what); remove it and restart to make a new one "
                    + "(clients must then use the new one)")
        }
        return value
    }

    /// Writes a temporary file created 0600, syncs it and renames it into place.
    private static func create(_ path: String, text: String, what: String) throws(BridgeIdentityError) {
        let directory = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw BridgeIdentityError("\(directory): cannot create the directory for the \(what): \(error)")
        }
        let temporary = path + ".tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw BridgeIdentityError("\(temporary): cannot create the \(what): \(String(cString: strerror(errno)))")
        }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw BridgeIdentityError("\(path): cannot write the \(what): \(String(cString: strerror(errno)))")
        }
    }
}

/// Why the bridge's token, key or client id could not be loaded or created.
struct BridgeIdentityError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
