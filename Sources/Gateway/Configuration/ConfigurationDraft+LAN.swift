import TuyaCore

extension ConfigurationDraft {
    static let lanKeys = ["enabled", "discovery_ports", "bind", "solicitation", "answer_to"]

    /// `lan: {enabled, discovery_ports: [6666, 6667, 7000], bind, solicitation, answer_to}`.
    mutating func readLAN(_ sectionNode: ProfileNode) throws(ProfileError) {
        let section = try sectionNode.keys(Self.lanKeys)
        if let node = section.optional("enabled") {
            configuration.lan.enabled = try node.switchValue()
            remember(node)
        }
        if let node = section.optional("discovery_ports") {
            var ports: [Int] = []
            for item in try node.list() {
                let port = try item.int(in: 1...65535, what: "UDP port")
                guard !ports.contains(port) else { throw item.error("port \(port) is listed twice") }
                ports.append(port)
            }
            configuration.lan.discoveryPorts = ports
            remember(node)
        }
        if let node = section.optional("bind") {
            configuration.lan.bind = try node.checked(ConfigurationValue.ipv4Address)
            remember(node)
        }
        if let node = section.optional("solicitation") {
            configuration.lan.solicitation = try node.checked(ConfigurationValue.ipv4Endpoint)
            remember(node)
        }
        if let node = section.optional("answer_to") {
            configuration.lan.answerTo = try node.checked(ConfigurationValue.ipv4Address)
            remember(node)
        }
    }

    private mutating func remember(_ node: ProfileNode) {
        origins[node.path] = ConfigurationOrigin(source: node.source, line: node.line)
    }
}
