/// Why an ATT exchange failed, in words a user can act on.
public enum ATTError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The server answered `request` with an Error Response.
    case errorResponse(request: ATTOpcode, handle: UInt16, code: ATTErrorCode)
    /// No response to `request` within the transaction timeout. ATT forbids further PDUs on
    /// the bearer after this (Core spec Vol 3 Part F §3.3.3), so the bearer is closed.
    case transactionTimeout(request: ATTOpcode, after: Duration)
    /// The response to `request` had the right opcode but did not parse.
    case malformedResponse(request: ATTOpcode, ATTDecodingError)
    /// A response with another opcode arrived while `request` was outstanding; like BlueZ, the
    /// request ends with this error.
    case unexpectedResponse(request: ATTOpcode, received: ATTOpcode)
    /// The link is gone: the peer closed it, the socket failed, or `close()` was called.
    case disconnected(reason: String)

    public var description: String {
        switch self {
        case .errorResponse(let request, let handle, let code):
            "the device refused \(request) at handle \(ATTHex.handle(handle)): \(code)"
        case .transactionTimeout(let request, let after):
            "no answer to \(request) within \(after); the link is closed (ATT allows no more requests after a "
                + "timeout)"
        case .malformedResponse(let request, let error):
            "the answer to \(request) is malformed: \(error)"
        case .unexpectedResponse(let request, let received):
            "the device answered \(request) with \(received)"
        case .disconnected(let reason):
            "the BLE link is down: \(reason)"
        }
    }
}
