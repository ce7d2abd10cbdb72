import TuyaCore
import TuyaWire

extension LANDeviceLink {
    static func makeSession(
        version: LANProtocolVersion, key: AESKey, endpoint: LANEndpoint, firstSequence: UInt32
    ) -> LANClientSession {
        // 3.5 frames carry the source id kept for the device across restarts; the sequence
        // keeps rising across the link's connections.
        LANClientSession(
            version: version, localKey: key, sourceID: version == .v3_5 ? endpoint.sourceID : nil,
            firstSequence: firstSequence)
    }

    /// The device as the store keeps it, at the address it last proved the key at: what is
    /// saved or restored (a rekey, a re-probe) never takes an address learned from a
    /// broadcast that has not proved it.
    func stored() -> StoredDevice? {
        var proven = endpoint
        proven.ip = provenAddress
        return StoredDevice(
            device: core.device, localKey: key, desired: core.desired, confirmed: core.reported, lan: proven)
    }

    var transportWake: Duration? { policy.nextWake }

    /// A command is handed to the event loop, and the caller's task stays where it is.
    /// Entering the actor instead moves the task onto the loop's thread; its answer then
    /// resumed it on the pool, from where it hopped back onto the loop and off again to
    /// return: two more wake-ups of a thread per command. A caller already on the loop (a
    /// task preferring `taskExecutor`) runs the work at once, where it is.
    nonisolated func post(_ work: @escaping @Sendable (isolated LANDeviceLink) -> Void) async {
        if loop.isCurrent { return runOnLoop(work) }
        loop.execute { self.runOnLoop(work) }
    }

    /// On the loop, the actor's executor: `assumeIsolated` checks that, and cannot be called
    /// from the async `post` itself.
    nonisolated func runOnLoop(_ work: @Sendable (isolated LANDeviceLink) -> Void) {
        assumeIsolated(work)
    }
}
