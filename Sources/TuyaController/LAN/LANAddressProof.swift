/// Which address a LAN device has proved its local key at, for a link that also follows
/// addresses heard in broadcasts (which are not authenticated). Pure.
///
/// The stored address counts as proven. An address learned from a broadcast becomes proven
/// once the device there answers with something only the key opens (a 3.4/3.5 handshake, a
/// payload that decrypts); until then an empty frame there proves nothing and keeps nothing
/// alive. A connection that fails there first sends the link back to the proven address,
/// and that address is not taken again for `retryAfter`.
///
/// A protocol version heard in a broadcast (a re-probe after a firmware update) is in doubt the
/// same way: until the device proves the key speaking it, even the stored address is not
/// proven, a failed handshake does not blame the key, and the first proof is one to save.
struct LANAddressProof: Sendable {
    /// The address the device last proved the key at.
    private(set) var proven: String
    /// Whether the link's protocol version is the stored one, or proven since.
    private(set) var versionProven: Bool
    /// Whether the device proved the key on the current connection.
    private(set) var provenHere = false
    private var failed: (ip: String, at: Duration)?
    let retryAfter: Duration

    init(proven: String, versionProven: Bool = true, retryAfter: Duration = .seconds(60)) {
        self.proven = proven
        self.versionProven = versionProven
        self.retryAfter = retryAfter
    }

    /// Whether the link may move to `ip` now: not to an address that failed to prove the
    /// key within `retryAfter` (a re-probe or the next broadcast would bounce the link
    /// between two addresses with no backoff).
    func allowsMove(to ip: String, now: Duration) -> Bool {
        guard let failed, failed.ip == ip else { return true }
        return now >= failed.at + retryAfter
    }

    /// Whether a frame with `payload` counts from the device at `ip`: an empty one does not
    /// where the key is not proven (its CRC needs no key).
    func counts(payload: [UInt8], at ip: String) -> Bool {
        provenHere || !payload.isEmpty || ip == proven
    }

    /// Whether a key mismatch at `ip` says the stored key is wrong (not where the address
    /// itself is in doubt).
    func blamesKey(at ip: String) -> Bool { provenHere || (versionProven && ip == proven) }

    /// The device at `ip` proved the key on this connection; true when `ip` (or the version) is
    /// newly proven: the endpoint to save.
    mutating func keyProven(at ip: String) -> Bool {
        provenHere = true
        failed = nil
        let known = versionProven && ip == proven
        versionProven = true
        proven = ip
        return !known
    }

    /// A connection opened or closed: nothing is proven on it yet.
    mutating func resetConnection() { provenHere = false }

    /// The connection at `ip` failed: the address to go back to, when `ip` never proved the key.
    mutating func failed(at ip: String, now: Duration) -> String? {
        guard ip != proven, !provenHere else { return nil }
        failed = (ip, now)
        return proven
    }
}
