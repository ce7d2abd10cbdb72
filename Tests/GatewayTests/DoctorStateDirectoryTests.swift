import Foundation
import Storage
import Testing

@testable import Gateway

#if canImport(Glibc)
    import Glibc
#endif

/// Real parts: directories and a real state database in a temporary folder.
@Suite("doctor: state directory")
struct DoctorStateDirectoryTests {
    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("youll-doctor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        return url
    }

    private func check(_ path: String) -> DoctorCheck {
        DoctorCheck.stateDirectory(path, StateDirectoryInspection.inspect(path))
    }

    @Test("doctor looks for the database file Storage really creates")
    func databaseName() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try GatewayDatabase.open(directory: directory.appendingPathComponent("state"))
        #expect(URL(fileURLWithPath: database.path).lastPathComponent == StateDirectoryInspection.databaseName)
    }

    @Test("a directory the daemon opened is ok: 0700 with a 0600 database")
    func healthy() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let state = root.appendingPathComponent("state")
        _ = try GatewayDatabase.open(directory: state)
        let result = check(state.path)
        #expect(result.status == .ok, "\(result)")
        #expect(result.detail == "\(state.path) (mode 0700), state.sqlite (mode 0600)")
    }

    @Test("a missing directory is a warning: it will be created on first start")
    func missing() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let path = root.appendingPathComponent("a/b/state").path
        let result = check(path)
        #expect(result.status == .warn)
        #expect(result.detail == "\(path) does not exist; it will be created on first start")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("a directory others can read fails with the chmod line")
    func wideDirectory() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        chmod(root.path, 0o755)
        let result = check(root.path)
        #expect(result.status == .fail)
        #expect(result.detail.contains("has mode 0755"))
        #expect(result.fix == "chmod 700 \(root.path)")
    }

    @Test("a database others can read fails with the chmod line")
    func wideDatabase() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        chmod(root.path, 0o700)
        let database = root.appendingPathComponent("state.sqlite").path
        #expect(FileManager.default.createFile(atPath: database, contents: Data()))
        chmod(database, 0o644)
        let result = check(root.path)
        #expect(result.status == .fail)
        #expect(result.fix == "chmod 600 \(database)")
    }

    @Test("a file where the directory should be fails")
    func notADirectory() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let path = root.appendingPathComponent("state").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        #expect(check(path).status == .fail)
        #expect(check(path).detail == "\(path) is not a directory")
    }

    @Test("another owner, or no write access, fails (crafted: the tests may run as root)")
    func ownership() {
        let path = "/var/lib/youll-devices"
        let foreign = StateDirectoryInspection(
            directory: .directory(mode: 0o700, owner: 998), database: .missing, isWritable: true, userID: 1000)
        let owned = DoctorCheck.stateDirectory(path, foreign)
        #expect(owned.status == .fail)
        #expect(owned.detail == "/var/lib/youll-devices belongs to uid 998, not to this user (uid 1000)")
        let readOnly = StateDirectoryInspection(
            directory: .directory(mode: 0o500, owner: 1000), database: .missing, isWritable: false, userID: 1000)
        #expect(DoctorCheck.stateDirectory(path, readOnly).status == .fail)
        let uncreatable = StateDirectoryInspection(
            directory: .missing, database: .missing, isWritable: false, userID: 1000)
        let created = DoctorCheck.stateDirectory(path, uncreatable)
        #expect(created.status == .fail)
        #expect(created.fix == "sudo install -d -m 700 -o $(id -un) /var/lib/youll-devices")
        let foreignDatabase = StateDirectoryInspection(
            directory: .directory(mode: 0o700, owner: 1000), database: .file(mode: 0o600, owner: 0), isWritable: true,
            userID: 1000)
        #expect(DoctorCheck.stateDirectory(path, foreignDatabase).status == .fail)
    }
}
