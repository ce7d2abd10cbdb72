import TuyaCore
import TuyaWire

/// What one message on `<base>/bridge/response/<verb>` means to a client waiting for
/// `transaction`: `{"status":"ok"|"error","data":{…},"error":"…","transaction":…}`.
///
/// The payload is untrusted (anyone on the broker may publish there), so reading never
/// traps: anything that is not a response object is `malformed` with the reason.
public enum BridgeResponse: Hashable, Sendable {
    /// `status: ok`; the `data` member, or an empty object when the daemon sent none.
    case ok(JSONValue)
    /// `status: error`; the `error` member, made printable.
    case failed(String)
    /// A well-formed response to some other request (another transaction, or none): not ours.
    case otherTransaction
    /// Not a response at all (not JSON, not an object, no usable status).
    case malformed(String)

    /// Reads `payload` as the answer to the request sent with `transaction`.
    public static func read(_ payload: [UInt8], transaction: JSONValue) -> BridgeResponse {
        let value: JSONValue
        do {
            value = try BridgeJSON.decode(payload)
        } catch {
            return .malformed("not JSON (\(BridgeText.printable("\(error)")))")
        }
        guard let object = value.objectValue else {
            return .malformed("expected a JSON object, got \(BridgeJSON.kind(of: value))")
        }
        // Responses to other clients' requests share the topic; without a transaction a
        // response answers a request that carried none, which is never one of ours.
        guard let answered = object["transaction"], answered == transaction else { return .otherTransaction }
        switch object["status"] {
        case .string("ok")?:
            return .ok(object["data"] ?? .object([:]))
        case .string("error")?:
            switch object["error"] {
            case .string(let message)? where !message.isEmpty:
                return .failed(BridgeText.printable(message))
            case nil, .null?, .string?:
                return .failed("the daemon refused the request without saying why")
            case let other?:
                return .failed(BridgeText.printable(BridgeJSON.text(other)))
            }
        case nil:
            return .malformed("no \"status\" member")
        case let other?:
            return .malformed(
                "\"status\" is \(BridgeText.printable(BridgeJSON.text(other), maximumLength: 40)), "
                    + "expected \"ok\" or \"error\"")
        }
    }
}
