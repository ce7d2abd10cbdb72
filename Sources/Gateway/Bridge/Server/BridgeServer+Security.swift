import Crypto
import MQTTLink
import Foundation
import TuyaCore
import TuyaWire

/// How the bridge secures its API (README "Securing the broker"): signed requests for the verbs
/// that change what is paired, and local keys sealed to the gateway's key.
public struct BridgeSecurity: Sendable {
    /// The token requests are signed with; nil: `bridge.auth` is off and nothing is checked.
    var token: BridgeToken?
    /// Where the token is, for the messages that say how to sign.
    var tokenFile = "<state>/bridge-token"
    /// The key `sealed_local_key` is opened with; nil: no sealed key can be opened.
    var privateKey: Curve25519.KeyAgreement.PrivateKey?
    /// `bridge.accept_clear_keys`: take a `local_key` sent in clear.
    var acceptClearKeys = false
    /// Unix seconds now, against which a request's `auth.time` is checked; tests pass their own.
    var now: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }

    public init() {}
}

extension BridgeServer {
    enum SecuredPayload {
        /// What `BridgeRequest.parse` reads: the request without `auth`, its key opened.
        case accepted([UInt8])
        case refused(RequestAuthenticator.Refusal)
    }

    /// Checks the signature of a request whose verb needs one, opens a sealed local key and
    /// refuses a clear one (unless `bridge.accept_clear_keys`). A payload that is not a JSON
    /// object is passed on as it is, for `parse` to say what is wrong with it, unless it needed
    /// a signature.
    func secure(verb: String, payload: [UInt8]) -> SecuredPayload {
        let object = (try? CompactJSON.decode(payload))?.objectValue
        if BridgeAuthentication.signedVerbs.contains(verb), var authenticator {
            let refusal = authenticator.check(verb: verb, payload: object, now: settings.security.now())
            self.authenticator = authenticator
            if let refusal { return .refused(refusal) }
        }
        guard var object else { return .accepted(payload) }
        object["auth"] = nil
        if SealedLocalKey.verbs.contains(verb) {
            if case .string(let sealed)? = object[SealedLocalKey.field] {
                guard object["local_key"] == nil else {
                    return .refused(
                        .init(
                            reason: "invalid_request",
                            message: "local_key and sealed_local_key: give only one (the sealed one)"))
                }
                guard let privateKey = settings.security.privateKey else {
                    return .refused(
                        .init(reason: "invalid_request", message: "sealed_local_key: this gateway has no key"))
                }
                do throws(BridgePayloadError) {
                    let device = object["id"]?.stringValue ?? ""
                    object["local_key"] = .string(
                        try SealedLocalKey.open(sealed, verb: verb, device: device, with: privateKey))
                    object[SealedLocalKey.field] = nil
                } catch {
                    return .refused(.init(reason: "invalid_request", message: error.description))
                }
            } else if object["local_key"] != nil, !settings.security.acceptClearKeys {
                return .refused(
                    .init(
                        reason: "clear_key",
                        message: "local_key: refused, it was sent in clear over the broker where any subscriber can "
                            + "read it; seal it to the public_key in bridge/info as sealed_local_key (the "
                            + "youll-devices CLI does), or set bridge.accept_clear_keys: true"))
            }
        }
        return .accepted(CompactJSON.encode(.object(object)))
    }
}

extension BridgeServer {
    /// Notices a session takeover. Over MQTT 3.1.1 the broker just closes the connection of a
    /// client whose id another client connects with (mosquitto logs "Client … already
    /// connected, closing old connection"), which reads as a lost connection; a connection
    /// closed by the broker that is accepted again at the first retry means the broker is
    /// running, and another client has the bridge's id. Logged and counted
    /// (`youll_broker_session_takeovers_total`).
    func noteTakeover(after event: MQTTEvent) {
        switch event {
        case .disconnected(.connectionLost(.connectionLost)):
            closedByBroker = true
        case .reconnectFailed:
            closedByBroker = false
        case .connected:
            guard closedByBroker else { return }
            closedByBroker = false
            metrics.recordClosedByBroker()
            let message =
                "session takeover: the broker closed the bridge's connection and took it back at once; another "
                + "client is probably connecting with the bridge's client id (check the broker's log for "
                + "\"already connected, closing old connection\", and its ACLs)"
            logger.warning("\(message)")
        default:
            break
        }
    }
}
