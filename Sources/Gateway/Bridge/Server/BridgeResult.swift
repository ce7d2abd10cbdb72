import TuyaCore

/// The answer to one request: `data`, and `ok` or an error message.
struct BridgeResult: Sendable {
    enum Outcome: Sendable {
        case ok
        case error(String)
    }

    var outcome: Outcome
    var data: [String: JSONValue]

    static func ok(_ data: [String: JSONValue]) -> BridgeResult { BridgeResult(outcome: .ok, data: data) }

    /// An answer whose `data` is `payload`'s members.
    static func ok(_ payload: some Encodable) -> BridgeResult { .ok(BridgeJSON.object(payload)) }

    static func failure(verb: String, message: String, data: [String: JSONValue] = [:]) -> BridgeResult {
        BridgeResult(outcome: .error("\(verb): \(message)"), data: data)
    }
}

/// `<base>/bridge/response/<verb>`: `{"status":"ok"|"error","data":{…},"error":"…","transaction":…}`,
/// `error` only on an error and `transaction` only when the request carried one (echoed as it came).
struct BridgeResponsePayload: Encodable {
    var status: String
    var data: [String: JSONValue]
    var error: String?
    var transaction: JSONValue?
}

/// `<base>/bridge/event`: `{"type":"…","data":{…}}`.
struct BridgeEventPayload: Encodable {
    var type: String
    var data: [String: JSONValue]
}

/// A request that could not be carried out, with the message the response carries.
struct BridgeFailure: Error {
    var message: String
    var data: [String: JSONValue] = [:]

    init(message: String, data: [String: JSONValue] = [:]) {
        self.message = message
        self.data = data
    }

    /// A failure whose `data` names its cause: `{"reason": "<reason>"}`.
    init(message: String, reason: String) {
        self.init(message: message, data: BridgeJSON.object(FailureReasonPayload(reason: reason)))
    }
}
