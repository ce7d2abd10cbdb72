import Foundation
import Storage
import Testing
import TuyaCore

/// Real parts: profile folders and files in a temporary directory, read by
/// `ProfileLibrary.load(directories:)`.
@Suite("profile folders read from disk")
struct ProfileFolderTests {
    /// A fresh folder under the temporary directory; the caller removes it.
    private func makeFolder(_ files: [String: String]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("profile-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, text) in files {
            try Data(text.utf8).write(to: folder.appendingPathComponent(name))
        }
        return folder
    }

    private func profile(id: String, name: String = "Test", productID: String = "pid", dataPoints: [Int] = [1])
        -> String
    {
        """
        id: \(id)
        name: \(name)
        category: dj
        product_ids: [\(productID)]
        transports: [mqtt]
        data_points:
        \(dataPoints.map { "  - { id: \($0), code: dp\($0), type: bool }" }.joined(separator: "\n"))

        """
    }

    @Test("a folder with one broken and two good profiles loads the two and reports the one")
    func brokenProfileDoesNotStopOthers() throws {
        let folder = try makeFolder([
            "a.yaml": profile(id: "good-a"),
            "b.yml": profile(id: "good-b"),
            "c.yaml": profile(id: "broken").replacingOccurrences(of: "category: dj", with: "category: tv"),
            "notes.txt": "not a profile",
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = ProfileLibrary.load(directories: [folder])
        #expect(library.all.map(\.id) == ["good-a", "good-b"])
        #expect(library.errors.count == 1)
        #expect(library.errors.first?.source.hasSuffix("c.yaml") == true)
        #expect(library.errors.first?.keyPath == "category")
    }

    @Test("a later folder's profile overrides an earlier one with the same id")
    func overrideOrder() throws {
        let installed = try makeFolder([
            "bulb.yaml": profile(id: "bulb", name: "Installed"), "other.yaml": profile(id: "other"),
        ])
        let user = try makeFolder(["my-bulb.yaml": profile(id: "bulb", name: "Mine")])
        defer {
            try? FileManager.default.removeItem(at: installed)
            try? FileManager.default.removeItem(at: user)
        }
        #expect(ProfileLibrary.load(directories: [installed, user]).profile(id: "bulb")?.name == "Mine")
        #expect(ProfileLibrary.load(directories: [user, installed]).profile(id: "bulb")?.name == "Installed")
        #expect(ProfileLibrary.load(directories: [installed, user]).all.count == 2)
    }

    @Test("two files with the same id in one folder: the first by name loads, the second is reported")
    func duplicateIDInOneFolder() throws {
        let folder = try makeFolder([
            "a.yaml": profile(id: "same", name: "First"), "b.yaml": profile(id: "same", name: "Second"),
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = ProfileLibrary.load(directories: [folder])
        #expect(library.profile(id: "same")?.name == "First")
        #expect(library.errors.first?.reason.contains("already used by") == true)
    }

    @Test("a missing folder is skipped; non-UTF-8 and oversized files are reported")
    func hostileFiles() throws {
        let folder = try makeFolder(["good.yaml": profile(id: "good")])
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data([0x69, 0x64, 0x3A, 0x20, 0xFF, 0xFE, 0x0A]).write(to: folder.appendingPathComponent("latin.yaml"))
        try Data(repeating: 0x23, count: ProfileLoader.maximumSize + 10).write(
            to: folder.appendingPathComponent("huge.yaml"))
        let missing = folder.appendingPathComponent("does-not-exist")
        let library = ProfileLibrary.load(directories: [missing, folder])
        #expect(library.all.map(\.id) == ["good"])
        #expect(library.errors.count == 2)
        #expect(library.errors.contains { $0.source.hasSuffix("latin.yaml") && $0.reason.contains("not valid UTF-8") })
        #expect(library.errors.contains { $0.source.hasSuffix("huge.yaml") && $0.reason.contains("larger than") })
    }

    @Test("a FIFO named like a profile is reported, not read (it would block)")
    func fifoIsNotRead() throws {
        let folder = try makeFolder(["good.yaml": profile(id: "good")])
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("pipe.yaml").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let library = ProfileLibrary.load(directories: [folder])
        #expect(library.all.map(\.id) == ["good"])
        #expect(library.errors.map(\.source) == [fifo])
        #expect(library.errors.first?.reason.contains("not a regular file") == true)
    }

    @Test("a path that is a file, not a folder, is reported as a folder that cannot be listed")
    func fileInsteadOfFolder() throws {
        let folder = try makeFolder(["a.yaml": profile(id: "a")])
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("a.yaml")
        let library = ProfileLibrary.load(directories: [file])
        #expect(library.all.isEmpty)
        #expect(library.errors.first?.reason.contains("cannot list this profile folder") == true)
    }
}
