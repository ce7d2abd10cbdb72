import Foundation

/// Sends one HTTP POST. Behind a protocol so the webhook's retry logic is tested without
/// a network and `Maintenance` imports no networking; the real one (`WebhookPoster`)
/// lives in the gateway.
public protocol HTTPPoster: Sendable {
    /// POSTs `body` to `url` and returns the response's status code. Throws when no
    /// response arrived (refused, unreachable, timed out).
    func post(_ body: Data, to url: URL, headers: [String: String]) async throws -> Int
}
