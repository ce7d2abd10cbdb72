/// Where the swarm's clients connect and how they behave on the wire.
public struct SwarmConfiguration: Sendable, Hashable {
    public var host: String
    public var port: Int
    /// MQTT keep-alive in seconds; `mosquitto_loop_misc` sends the pings.
    public var keepAlive: Int32
    /// Wait before the first reconnect attempt, doubling up to the upper bound.
    public var reconnectDelay: ClosedRange<Duration>
    /// Blocking TCP connects per turn of the loop, so a thousand clients starting at once
    /// neither overflow the broker's accept backlog nor starve the clients already up.
    public var connectsPerTurn: Int

    public init(
        host: String = "127.0.0.1", port: Int, keepAlive: Int32 = 60,
        reconnectDelay: ClosedRange<Duration> = .milliseconds(50) ... .seconds(2), connectsPerTurn: Int = 32
    ) {
        self.host = host
        self.port = port
        self.keepAlive = keepAlive
        self.reconnectDelay = reconnectDelay
        self.connectsPerTurn = max(1, connectsPerTurn)
    }

    /// Parses `mqtt://host:port`, `tcp://host:port` or `host:port` (port 1883 when absent).
    public init(brokerURL: String) throws(SimulatorError) {
        var rest = Substring(brokerURL)
        for scheme in ["mqtt://", "tcp://"] where rest.hasPrefix(scheme) {
            rest = rest.dropFirst(scheme.count)
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.contains("/"), !rest.contains("://") else { throw .invalidBrokerURL(brokerURL) }
        let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
        guard let host = parts.first, !host.isEmpty, parts.count <= 2 else { throw .invalidBrokerURL(brokerURL) }
        var port = 1883
        if parts.count == 2 {
            guard let parsed = Int(parts[1]), (1...65_535).contains(parsed) else { throw .invalidBrokerURL(brokerURL) }
            port = parsed
        }
        self.init(host: String(host), port: port)
    }
}
