import Foundation
import Maintenance

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The daemon's `HTTPPoster`: an ephemeral `URLSession` (no cache, no cookies) whose
/// requests, once started, are never cancelled; each ends on its own within `timeout`.
///
/// Why: on Linux, FoundationNetworking can deadlock when `URLSessionTask.cancel()` (which
/// `data(for:)` calls on cancellation) races the task's completion — seen here as a daemon
/// that never finished shutting down while a webhook POST was finishing. And a POST that
/// the receiver accepted must be reported as accepted, even during shutdown, or the outbox
/// sends it again after the restart. A caller already cancelled before the request starts
/// gets `CancellationError` and nothing is sent.
public struct WebhookPoster: HTTPPoster {
    private let session: URLSession

    public init(timeout: Duration = .seconds(10)) {
        let configuration = URLSessionConfiguration.ephemeral
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        configuration.timeoutIntervalForRequest = seconds
        configuration.timeoutIntervalForResource = seconds
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        self.session = URLSession(configuration: configuration)
    }

    public func post(_ body: Data, to url: URL, headers: [String: String]) async throws -> Int {
        try Task.checkCancellation()
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let session = session
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
            session.dataTask(with: request) { _, response, error in
                if let http = response as? HTTPURLResponse {
                    continuation.resume(returning: http.statusCode)
                } else {
                    continuation.resume(throwing: error ?? URLError(.badServerResponse))
                }
            }.resume()
        }
    }
}
