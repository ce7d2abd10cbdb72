import Foundation
import TuyaCore

/// The CLI's side of the bridge's security (README "Securing the broker"): local keys sealed to
/// the gateway's public key from `bridge/info`, and the verbs that need it signed with the token
/// in `bridge.token_file` when this user can read it.
extension BridgeClient {
    /// `payload` as the daemon takes it for `verb`.
    func secured(
        _ verb: String, _ payload: [String: JSONValue], timeout: Duration
    ) async throws(BridgeClientError) -> [String: JSONValue] {
        let sealing = SealedLocalKey.verbs.contains(verb) && payload["local_key"] != nil
        let key = sealing ? try await publicKey(timeout: timeout) : nil
        let token = BridgeAuthentication.signedVerbs.contains(verb) ? try? readToken().get() : nil
        do {
            return try BridgeAuthentication.prepare(
                verb: verb, payload: payload, token: token, gatewayKey: key, time: Int64(Date().timeIntervalSince1970))
        } catch {
            throw .requestFailed(verb: verb, message: "\(verb): \(error.description)")
        }
    }

    /// The token, read once.
    func readToken() -> Result<BridgeToken, BridgeTokenError> {
        if let signingToken { return signingToken }
        let read = Result { () throws(BridgeTokenError) in try BridgeToken.read(path: tokenFile) }
        signingToken = read
        return read
    }

    /// The daemon's refusal of an unsigned request, with why this client could not sign it.
    func explainRefusal(_ error: BridgeClientError) -> BridgeClientError {
        guard case .requestFailed(let verb, let message) = error, message.contains("request not signed"),
            case .failure(let problem)? = signingToken
        else { return error }
        return .requestFailed(
            verb: verb,
            message: message + ". This CLI has no token: \(problem.description); run it as the daemon's user, or "
                + "copy the token and set bridge.token_file (YOULL_BRIDGE_TOKEN_FILE)")
    }

    /// `public_key` from the retained `<base>/bridge/info`, read once.
    private func publicKey(timeout: Duration) async throws(BridgeClientError) -> String? {
        if let gatewayKey { return gatewayKey }
        let topic = "\(baseTopic)/bridge/info"
        var message = try await retained(topic, timeout: timeout)
        if message?.json?["public_key"] == nil {
            // Just after the daemon came online its bridge/info may still be on the way.
            message = try await nextMessage(on: topic, timeout: timeout)
        }
        let key = try message?.decoded().objectValue?["public_key"]?.stringValue
        gatewayKey = key
        return key
    }
}
