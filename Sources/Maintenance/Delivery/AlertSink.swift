/// Somewhere alerts go: the bridge event topic and retained `youll/<device>/maintenance`,
/// the webhook, the log. The gateway hands every alert of a `MaintenanceUpdate` to each
/// configured sink.
public protocol AlertSink: Sendable {
    /// Takes an alert. Returns once the sink has it safely (sent, or queued durably); a
    /// sink that retries does so on its own time. Throws only when the alert could not be
    /// taken at all (the outbox could not be written), so the caller can keep it.
    func deliver(_ alert: MaintenanceAlert) async throws
}
