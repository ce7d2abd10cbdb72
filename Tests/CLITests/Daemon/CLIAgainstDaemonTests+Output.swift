import DeviceSimulator
import Foundation
import Testing

/// What the CLI tests read from the binary's output and what they set up before running it.
extension CLIAgainstDaemonTests {
    func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

    /// The `label  value` lines `get` and `set` print, by label; every value starts in the same column.
    func keyValues(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> [String: String] {
        var fields: [String: String] = [:]
        var valueColumns = Set<Int>()
        for line in lines(text) {
            guard let gap = line.range(of: "  ") else {
                Issue.record("not a label  value line: \(line)", sourceLocation: sourceLocation)
                continue
            }
            let label = String(line[..<gap.lowerBound])
            let value = line[gap.lowerBound...].drop { $0 == " " }
            valueColumns.insert(line.count - value.count)
            fields[label] = String(value)
        }
        #expect(valueColumns.count <= 1, "values aligned: \(text)", sourceLocation: sourceLocation)
        return fields
    }

    func jsonObject(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    func jsonArray(_ text: String) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]], "\(text)")
    }

    /// Exit status 1, nothing on stdout, one `error: …` line on stderr; that line.
    @discardableResult
    func expectOneLineError(
        _ result: CLIRunner.Result, sourceLocation: SourceLocation = #_sourceLocation
    ) -> String {
        #expect(
            result.status == 1, "stdout: \(result.stdout)\nstderr: \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, "\(result.stdout)", sourceLocation: sourceLocation)
        let errorLines = lines(result.stderr)
        #expect(errorLines.count == 1, "one line: \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("error: "), "\(result.stderr)", sourceLocation: sourceLocation)
        return errorLines.first ?? ""
    }

    func expectNoKeys(
        _ results: [CLIRunner.Result], _ fleet: SimulatorFleet, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for result in results {
            for identity in fleet.identities {
                #expect(
                    !result.stdout.contains(identity.localKey), "a local key on stdout", sourceLocation: sourceLocation)
                #expect(
                    !result.stderr.contains(identity.localKey), "a local key on stderr", sourceLocation: sourceLocation)
            }
        }
    }

    /// Waits until the daemon has published every device's availability as online, so the
    /// retained topics the CLI reads are settled.
    func waitOnline(_ rig: DaemonRig, _ names: [String]) async throws {
        for name in names {
            _ = try await rig.observer.wait(for: "youll/\(name)/availability") { $0.json?["state"]?.string == "online" }
        }
    }

    func writeDevicesJSON(_ rig: DaemonRig, _ fleet: SimulatorFleet) throws -> String {
        let file = rig.directory.appendingPathComponent("devices.json").path
        try fleet.devicesJSON().write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }
}
