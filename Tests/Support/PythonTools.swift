import Foundation
import LocalBroker

/// The private Python environment with the outside references (tinytuya, Bumble) that
/// `scripts/python-tools` makes. Tests that check our protocols against an implementation
/// no one here wrote call `PythonTools.python()`; the first call in a test process makes
/// the environment if it is missing (a few seconds from PyPI), so `swift test` alone works.
public enum PythonTools {
    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String
    }

    /// Made once per test process, by the first caller; the others wait for it.
    private static let making = Task { await make() }

    /// The virtual environment's python, made on first use. Throws, naming the command to
    /// run by hand, when it cannot be made (no python3, no network to PyPI).
    public static func python() async throws(Unavailable) -> String {
        try await making.value.get()
    }

    /// A Python file under `Tests/Python/`.
    public static func script(_ name: String) -> String { Repository.path("Tests/Python/\(name)") }

    private static func make() async -> Result<String, Unavailable> {
        let output: ChildProcess.Output
        do {
            output = try await ChildProcess.run("/bin/bash", [Repository.path("scripts/python-tools")])
        } catch {
            return .failure(Unavailable(description: "cannot run scripts/python-tools: \(error)"))
        }
        let path = output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard output.status == 0, FileManager.default.isExecutableFile(atPath: path) else {
            return .failure(
                Unavailable(
                    description: "scripts/python-tools failed (run it by hand to see why): \(output.stderr.suffix(500))"
                ))
        }
        return .success(path)
    }
}
