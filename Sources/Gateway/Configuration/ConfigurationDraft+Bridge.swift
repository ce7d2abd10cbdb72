import TuyaCore

extension ConfigurationDraft {
    static let bridgeKeys = ["auth", "accept_clear_keys", "token_file"]

    /// `bridge: {auth, accept_clear_keys, token_file}`.
    mutating func readBridge(_ sectionNode: ProfileNode) throws(ProfileError) {
        let section = try sectionNode.keys(Self.bridgeKeys)
        if let node = section.optional("auth") {
            configuration.bridge.auth = try node.switchValue()
            origins[node.path] = ConfigurationOrigin(source: node.source, line: node.line)
        }
        if let node = section.optional("accept_clear_keys") {
            configuration.bridge.acceptClearKeys = try node.switchValue()
            origins[node.path] = ConfigurationOrigin(source: node.source, line: node.line)
        }
        if let node = section.optional("token_file") {
            configuration.bridge.tokenFile = try node.checked(ConfigurationValue.absolutePath)
            origins[node.path] = ConfigurationOrigin(source: node.source, line: node.line)
        }
    }
}
