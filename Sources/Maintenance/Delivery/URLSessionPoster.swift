import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The real `HTTPPoster`: Foundation's `URLSession` with a per-request timeout and no
/// caching or cookies. (Tests against a real HTTP receiver come with the gateway's
/// integration tests.)
public struct URLSessionPoster: HTTPPoster {
    public var timeout: Duration
    private let session: URLSession

    public init(timeout: Duration = .seconds(10)) {
        self.timeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        configuration.timeoutIntervalForRequest = seconds
        configuration.timeoutIntervalForResource = seconds
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        self.session = URLSession(configuration: configuration)
    }

    public func post(_ body: Data, to url: URL, headers: [String: String]) async throws -> Int {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = body
        request.timeoutInterval = session.configuration.timeoutIntervalForRequest
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (_, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        return http.statusCode
    }
}
