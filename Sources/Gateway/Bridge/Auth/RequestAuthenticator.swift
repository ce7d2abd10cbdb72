import Crypto
import TuyaCore

/// Checks the `auth` of signed requests (`BridgeAuthentication`) as a pure state machine: the
/// MAC against the token, the time against the gateway's clock (given to each call, so tests
/// use their own), and the nonce against those seen within the window (a replay).
struct RequestAuthenticator: Sendable {
    /// Why a request was refused: `reason` for the response's data and the metrics, `message`
    /// for the response's error.
    struct Refusal: Error, Hashable, Sendable {
        var reason: String
        var message: String
    }

    let token: BridgeToken
    let window: Int64
    /// Where the token is, for the message that says how to sign.
    let tokenFile: String
    /// Nonces accepted, with the request's time; forgotten once outside the window.
    private(set) var seen: [String: Int64] = [:]
    /// The most nonces remembered; more signed requests within one window are refused.
    static let maximumRemembered = 10_000

    /// When the gateway started (Unix seconds): the nonces seen before are forgotten, so a
    /// request signed before it is refused rather than replayable once after a restart.
    let startedAt: Int64?

    init(
        token: BridgeToken, tokenFile: String, window: Int64 = BridgeAuthentication.window, startedAt: Int64? = nil
    ) {
        self.token = token
        self.tokenFile = tokenFile
        self.window = window
        self.startedAt = startedAt
    }

    /// Accepts a signed `verb` request whose object is `payload` at `now` (Unix seconds), or
    /// says why not. An accepted nonce cannot be used again.
    mutating func check(verb: String, payload: [String: JSONValue]?, now: Int64) -> Refusal? {
        guard let payload, let authValue = payload["auth"] else {
            return Refusal(
                reason: "unsigned",
                message: "request not signed: \(verb) changes what is paired or touches secrets, and bridge.auth "
                    + "is on; sign it with the token in \(tokenFile) (the youll-devices CLI does when it can "
                    + "read that file)")
        }
        guard case .object(let auth) = authValue, case .integer(let time)? = auth["time"],
            case .string(let nonce)? = auth["nonce"], case .string(let macText)? = auth["mac"]
        else {
            return Refusal(
                reason: "unsigned",
                message: "request not signed: auth must be {\"time\": Unix seconds, \"nonce\": hex, \"mac\": hex}")
        }
        guard (16...128).contains(nonce.utf8.count), Hex.bytes(nonce) != nil else {
            return Refusal(reason: "unsigned", message: "request not signed: auth.nonce: expected 16 to 128 hex digits")
        }
        guard let mac = Hex.bytes(macText), mac.count == 32 else {
            return Refusal(reason: "unsigned", message: "request not signed: auth.mac: expected 64 hex digits")
        }
        let message = BridgeAuthentication.message(
            verb: verb, body: BridgeAuthentication.body(payload), time: time, nonce: nonce)
        guard
            HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: message, using: SymmetricKey(data: token.bytes))
        else {
            return Refusal(
                reason: "bad_signature",
                message: "request not signed: bad signature (auth.mac does not match this request signed with the "
                    + "gateway's token; is the token in \(tokenFile) the one the client uses?)")
        }
        // The larger minus the smaller, wrapping: exact as an unsigned number for any two Int64s
        // (a signed auth.time may be anything, Int64.min included).
        let skew = UInt64(bitPattern: time > now ? time &- now : now &- time)
        guard skew <= UInt64(window) else {
            return Refusal(
                reason: "stale",
                message: "request not signed: auth.time is \(skew) s \(time > now ? "ahead of" : "behind") the "
                    + "gateway's clock (allowed: ±\(window) s); check both clocks (NTP)")
        }
        if let startedAt, time < startedAt {
            return Refusal(
                reason: "stale",
                message: "request not signed: auth.time is before the gateway started (\(startedAt - time) s); "
                    + "sign it again")
        }
        forget(before: now - window)
        guard seen[nonce] == nil else {
            return Refusal(reason: "replayed", message: "replayed request: this auth.nonce was already used")
        }
        guard seen.count < Self.maximumRemembered else {
            return Refusal(
                reason: "busy", message: "too many signed requests within \(window) s; try again in a minute")
        }
        seen[nonce] = time
        return nil
    }

    /// Nonces older than `oldest` need no memory: their requests are outside the window now.
    private mutating func forget(before oldest: Int64) {
        guard seen.values.contains(where: { $0 < oldest }) else { return }
        seen = seen.filter { $0.value >= oldest }
    }
}
