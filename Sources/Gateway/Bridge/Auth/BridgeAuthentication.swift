import Crypto
import TuyaCore
import TuyaWire

/// Signed bridge requests (README "Securing the broker"). With `bridge.auth` on, a request for
/// one of `signedVerbs` carries
/// `"auth": {"time": <Unix seconds>, "nonce": "<32 hex>", "mac": "<64 hex>"}`, where `mac` is
/// HMAC-SHA256, keyed by the bridge token, over
/// `youll-bridge-request-v1 \n <verb> \n <time> \n <nonce> \n <body>` and `body` is the request
/// object without `auth`, in `CompactJSON`'s canonical encoding (no whitespace, keys sorted).
public enum BridgeAuthentication {
    /// The verbs that change what is paired or touch secrets or files. `/set`, `/get`, the
    /// timer's sessions, maintenance and health stay open, as in zigbee2mqtt.
    public static let signedVerbs: Set<String> = [
        "permit_join", "device/add", "device/remove", "device/rename", "device/rekey", "backup",
    ]

    /// How far a request's `time` may be from the gateway's clock, either way.
    public static let window: Int64 = 60

    /// The bytes the MAC covers.
    static func message(verb: String, body: [UInt8], time: Int64, nonce: String) -> [UInt8] {
        Array("youll-bridge-request-v1\n\(verb)\n\(time)\n\(nonce)\n".utf8) + body
    }

    static func mac(token: BridgeToken, message: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: token.bytes)))
    }

    /// The canonical body: `payload` without `auth`.
    static func body(_ payload: [String: JSONValue]) -> [UInt8] {
        var unsigned = payload
        unsigned["auth"] = nil
        return CompactJSON.encode(.object(unsigned))
    }

    /// `payload` with its `auth` member, signed at `time` (Unix seconds) with `nonce`.
    public static func sign(
        verb: String, payload: [String: JSONValue], token: BridgeToken, time: Int64, nonce: String = newNonce()
    ) -> [String: JSONValue] {
        let code = mac(token: token, message: message(verb: verb, body: body(payload), time: time, nonce: nonce))
        var signed = payload
        signed["auth"] = BridgeJSON.value(RequestSignature(time: time, nonce: nonce, mac: Hex.string(code)))
        return signed
    }

    /// A request's `auth` member: `{"time": <Unix seconds>, "nonce": "<hex>", "mac": "<64 hex>"}`.
    /// Outside what the MAC covers (the body is the request without `auth`).
    struct RequestSignature: Codable, Hashable, Sendable {
        var time: Int64
        var nonce: String
        var mac: String
    }

    /// 16 random bytes, as 32 hex characters.
    public static func newNonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return Hex.string((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// What a client sends for `verb`: a clear `local_key` sealed to the gateway's public key
    /// (`gatewayKey`, from `bridge/info`), then the whole signed when `token` is known and the
    /// verb needs it. Throws when a key is to be sealed and the gateway published no key.
    public static func prepare(
        verb: String, payload: [String: JSONValue], token: BridgeToken?, gatewayKey: String?, time: Int64
    ) throws(SealingError) -> [String: JSONValue] {
        var prepared = payload
        if SealedLocalKey.verbs.contains(verb), case .string(let key)? = payload["local_key"] {
            guard let gatewayKey else {
                throw SealingError(
                    "the gateway publishes no public key in bridge/info, so the local key cannot be sealed; "
                        + "update the daemon (a key is never sent in clear)")
            }
            let device = payload["id"]?.stringValue ?? ""
            prepared["local_key"] = nil
            prepared[SealedLocalKey.field] = .string(
                try SealedLocalKey.seal(key, verb: verb, device: device, to: gatewayKey))
        }
        if let token, signedVerbs.contains(verb) {
            prepared = sign(verb: verb, payload: prepared, token: token, time: time)
        }
        return prepared
    }
}
