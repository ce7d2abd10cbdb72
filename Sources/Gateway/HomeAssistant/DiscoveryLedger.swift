import Foundation
import TuyaCore
import TuyaWire

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The discovery config topics the gateway has published, kept in the state directory
/// (`ha-discovery.json`, 0600) so a later run can clear the ones whose device is gone,
/// even after a crash, a restore or a change of prefix: no ghost entity survives.
///
/// File format: `{"topics":["homeassistant/device/youll_bf3a…/config", …]}`, sorted.
/// Only topics ending in `/config` without wildcards are read back, so an edited file can
/// never make the gateway clear anything but discovery configs.
struct DiscoveryLedger: Sendable {
    static let fileName = "ha-discovery.json"
    /// A ledger of a few thousand devices is far below this.
    static let maximumSize = 4 << 20

    let file: URL

    /// The recorded topics; none when the file does not exist yet.
    func load() throws(DiscoveryLedgerError) -> Set<String> {
        let path = file.path
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            data = try handle.read(upToCount: Self.maximumSize + 1) ?? Data()
        } catch {
            throw .unreadable(path: path, reason: error.localizedDescription)
        }
        guard data.count <= Self.maximumSize else { throw .malformed(path: path, reason: "larger than 4 MiB") }
        let value: JSONValue
        do {
            value = try CompactJSON.decode(Array(data))
        } catch {
            throw .malformed(path: path, reason: "not JSON: \(error)")
        }
        guard case .array(let entries)? = value["topics"] else {
            throw .malformed(path: path, reason: #"expected {"topics":[…]}"#)
        }
        var topics: Set<String> = []
        for (index, entry) in entries.enumerated() {
            guard let topic = entry.stringValue, Self.isDiscoveryTopic(topic) else {
                throw .malformed(path: path, reason: "topics[\(index)] is not a discovery config topic")
            }
            topics.insert(topic)
        }
        return topics
    }

    /// Replaces the file atomically: a temporary file (0600) is written, synced and renamed
    /// over it, so a crash leaves the old ledger or the new one, never half of one.
    func save(_ topics: Set<String>) throws(DiscoveryLedgerError) {
        let path = file.path
        let bytes = CompactJSON.encode(.object(["topics": .array(topics.sorted().map(JSONValue.string))]))
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .unwritable(path: temporary, reason: Self.errnoText()) }
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                write(fd, buffer.baseAddress! + written, buffer.count - written)
            }
            if result < 0 {
                if errno == EINTR { continue }
                let reason = Self.errnoText()
                close(fd)
                unlink(temporary)
                throw .unwritable(path: temporary, reason: reason)
            }
            written += result
        }
        _ = fchmod(fd, 0o600)
        _ = fsync(fd)
        close(fd)
        guard rename(temporary, path) == 0 else {
            let reason = Self.errnoText()
            unlink(temporary)
            throw .unwritable(path: path, reason: reason)
        }
    }

    static func isDiscoveryTopic(_ topic: String) -> Bool {
        topic.utf8.count <= 1024 && topic.hasSuffix("/config") && topic.count > "/config".count
            && !topic.contains("+") && !topic.contains("#") && !topic.contains("\0")
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}

/// Why the discovery ledger could not be read or written. Neither stops the gateway:
/// discovery is still published, only ghost clearing is affected.
enum DiscoveryLedgerError: Error, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case malformed(path: String, reason: String)
    case unwritable(path: String, reason: String)

    var description: String {
        switch self {
        case .unreadable(let path, let reason):
            "cannot read the Home Assistant discovery ledger \(path): \(reason)"
        case .malformed(let path, let reason):
            "the Home Assistant discovery ledger \(path) is damaged (\(reason)); it will be rewritten, "
                + "and entities of devices removed before now may have to be deleted in Home Assistant by hand"
        case .unwritable(let path, let reason):
            "cannot write the Home Assistant discovery ledger \(path): \(reason); check the state directory's permissions"
        }
    }
}
