extension GatewayConfiguration {
    /// `bridge:`: who may change what is paired over the MQTT bridge API (README "Securing the broker").
    public struct Bridge: Hashable, Sendable {
        /// `bridge.auth`: verbs that change what is paired or touch secrets or files
        /// (`BridgeAuthentication.signedVerbs`) need a request signed with the token.
        public var auth = true
        /// `bridge.accept_clear_keys`: take a `local_key` sent in clear over the broker, as
        /// clients that cannot seal keys (HPKE) send it; off, only sealed keys are taken.
        public var acceptClearKeys = false
        /// `bridge.token_file`: where the request-signing token is; nil: `<state_directory>/bridge-token`.
        /// The daemon creates it (mode 0600) on first start; a remote CLI points at a copy.
        public var tokenFile: String?

        public init() {}
    }

    /// The token file the daemon writes and the CLI reads.
    public var effectiveTokenFile: String {
        bridge.tokenFile ?? stateDirectory + (stateDirectory.hasSuffix("/") ? "" : "/") + "bridge-token"
    }
}
