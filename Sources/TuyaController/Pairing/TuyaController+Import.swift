import TuyaCore

extension TuyaController {
    /// Parses a tinytuya `devices.json` and pairs its devices, `importConcurrency` at a
    /// time: enough to hide each pairing's round trip, few enough that a 1,000-device
    /// import does not hold 1,000 pairing attempts (and their frames) in memory at once.
    /// Returns each entry with its outcome, in file order.
    public func importTinyTuya(devicesJSON: [UInt8]) async throws -> [(TinyTuyaImport.Entry, PairingOutcome)] {
        let entries = try TinyTuyaImport.parse(devicesJSON)
        return try await withThrowingTaskGroup(of: (Int, PairingOutcome).self) { group in
            var outcomes: [Int: PairingOutcome] = [:]
            var next = 0
            func startNext() {
                guard next < entries.count else { return }
                let index = next
                let entry = entries[index]
                next += 1
                group.addTask {
                    let outcome = try await self.pair(
                        devId: entry.id.rawValue, localKey: entry.localKey, name: entry.name,
                        productID: entry.productID)
                    return (index, outcome)
                }
            }
            for _ in 0..<Self.importConcurrency { startNext() }
            for try await (index, outcome) in group {
                outcomes[index] = outcome
                startNext()
            }
            return entries.enumerated().map { index, entry in (entry, outcomes[index] ?? .noAnswer) }
        }
    }

    /// Pairings in flight during an import.
    public static let importConcurrency = 32
}
