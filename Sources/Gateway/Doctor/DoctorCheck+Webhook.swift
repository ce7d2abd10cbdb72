import Storage

extension DoctorCheck {
    /// Alerts the maintenance webhook did not take: the daemon keeps retrying them, but a
    /// receiver that is down or refuses them (a wrong URL or token) should be seen here.
    /// Only the kind of failure is shown (`HTTP 401`, `no response`): the stored error may
    /// quote the URL, whose query can hold a token.
    static func webhook(_ outbox: Result<GatewayDatabase.OutboxSummary?, StorageError>) -> DoctorCheck {
        let name = "webhook"
        let summary: GatewayDatabase.OutboxSummary
        switch outbox {
        case .failure(let error):
            return .warn(name, "cannot read the alert outbox: \(error)", fix: nil)
        case .success(nil):
            return .ok(name, "no maintenance alert queued yet")
        case .success(let found?):
            summary = found
        }
        guard summary.failing > 0 else {
            return .ok(
                name,
                summary.pending == 0 ? "every maintenance alert was delivered" : "\(summary.pending) alerts queued")
        }
        let error = summary.lastError ?? ""
        let kind = error.hasPrefix("HTTP ") ? String(error.prefix(8)) : "no response"
        let alerts = summary.failing == 1 ? "1 maintenance alert was" : "\(summary.failing) maintenance alerts were"
        return .warn(
            name,
            "\(alerts) not delivered (the oldest: \(kind), \(summary.attempts) attempts); the daemon keeps retrying",
            fix: "check maintenance.webhook.url and its headers, and that the receiver is up and answers 2xx")
    }
}
