import TuyaCore

extension ConfigurationDraft {
    static let maintenanceKeys = ["enabled", "webhook"]
    static let webhookKeys = ["url", "headers", "retry_initial", "retry_max"]

    /// `maintenance: {enabled, webhook: {url, headers, retry_initial, retry_max}}`.
    mutating func readMaintenance(_ sectionNode: ProfileNode) throws(ProfileError) {
        let section = try sectionNode.keys(Self.maintenanceKeys)
        if let node = section.optional("enabled") {
            configuration.maintenance.enabled = try node.switchValue()
            origins[node.path] = ConfigurationOrigin(source: node.source, line: node.line)
        }
        guard let webhookNode = section.optional("webhook") else { return }
        let webhook = try webhookNode.keys(Self.webhookKeys)
        let url = try webhook.required("url").checked(ConfigurationValue.webhookURL)
        var settings = GatewayConfiguration.Webhook(url: url)
        if let node = webhook.optional("headers") {
            var headers: [String: String] = [:]
            for (name, value) in try node.namedEntries() {
                let checkedName = try value.checked { text throws(InvalidValue) in
                    _ = text
                    return try ConfigurationValue.headerName(name)
                }
                guard !headers.keys.contains(where: { $0.lowercased() == checkedName.lowercased() }) else {
                    throw value.error("header '\(checkedName)' is given twice")
                }
                headers[checkedName] = try value.checked(ConfigurationValue.headerValue)
            }
            settings.headers = headers
        }
        if let node = webhook.optional("retry_initial") {
            // Under 100 ms a refusing receiver is retried in a tight loop, a write and an event each.
            settings.retryInitial = try node.duration(minimum: .milliseconds(100), maximum: .seconds(3600))
        }
        if let node = webhook.optional("retry_max") {
            settings.retryMaximum = try node.duration(maximum: .seconds(86_400))
        }
        if settings.retryMaximum < settings.retryInitial {
            throw webhookNode.error("retry_max must not be shorter than retry_initial")
        }
        configuration.maintenance.webhook = settings
        origins[webhookNode.path] = ConfigurationOrigin(source: webhookNode.source, line: webhookNode.line)
    }
}
