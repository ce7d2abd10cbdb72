/// One MQTT client of a `MosquittoSwarm`: a simulated device, or a test's stand-in for the
/// gateway. The swarm calls every requirement on its own thread only, so a peer needs no
/// locks; code elsewhere reaches a peer through `MosquittoSwarm.perform`.
public protocol SwarmPeer: AnyObject {
    /// The MQTT client id; a Tuya device uses its devId (protocol/TUYA.md §3.1).
    var clientID: String { get }
    /// Topics subscribed at QoS 1 after every (re)connect.
    var subscriptions: [String] { get }
    /// The broker accepted the connection and the subscriptions are sent.
    func didConnect(_ context: SwarmContext)
    /// The connection ended, cleanly or not.
    func didDisconnect(_ context: SwarmContext)
    func didReceive(topic: String, payload: [UInt8], _ context: SwarmContext)
    /// When `deadlinePassed` should next be called; nil for never.
    var deadline: ContinuousClock.Instant? { get }
    func deadlinePassed(_ context: SwarmContext)
}

extension SwarmPeer {
    public func didDisconnect(_ context: SwarmContext) {}
    public var deadline: ContinuousClock.Instant? { nil }
    public func deadlinePassed(_ context: SwarmContext) {}
}
