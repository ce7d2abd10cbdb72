import AsyncHTTPClient
import Foundation
import Maintenance
import NIOCore

/// The daemon's `HTTPPoster`, over async-http-client's shared client (no cookies, no cache).
/// A request, once started, is never cancelled: it ends on its own within `timeout`.
///
/// Why not cancelled: a POST that the receiver accepted must be reported as accepted, even
/// during shutdown, or the outbox sends it again after the restart. So the request runs in a
/// task of its own, which the caller's cancellation does not reach. A caller already
/// cancelled before the request starts gets `CancellationError` and nothing is sent.
public struct WebhookPoster: HTTPPoster {
    private let timeout: Duration

    public init(timeout: Duration = .seconds(10)) {
        self.timeout = timeout
    }

    public func post(_ body: Data, to url: URL, headers: [String: String]) async throws -> Int {
        try Task.checkCancellation()
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.body = .bytes(ByteBuffer(bytes: body))
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let timeout = TimeAmount.nanoseconds(
            timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000)
        let attempt = Task {
            let response = try await HTTPClient.shared.execute(request, timeout: timeout)
            // The answer is the status, whatever happens to the body after it: the body is read
            // and dropped (within the same timeout) so the connection can be reused.
            do {
                for try await _ in response.body {}
            } catch {}
            return Int(response.status.code)
        }
        return try await attempt.value
    }
}
