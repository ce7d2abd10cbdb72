import Foundation
import Storage
import TuyaCore

/// A fresh directory under the system temp dir, removed by `remove()`.
struct ScratchDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "youll-storage-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The state directory inside it (not created: `open` creates it).
    var state: URL { url.appendingPathComponent("state", isDirectory: true) }
    var databasePath: String { state.appendingPathComponent("state.sqlite").path }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

enum Fixture {
    static let lampID = DeviceID("bf1234567890abcdefgh")!
    static let diffuserID = DeviceID("ble-diffuser-1")!
    static let lampKey = LocalKey("0123456789abcdef")
    static let diffuserKey = LocalKey("fedcba9876543210")
    /// A whole second, so the round trip through SQLite's millisecond text is exact.
    static let paired = Date(timeIntervalSince1970: 1_750_000_000)

    static var lamp: TuyaDevice {
        TuyaDevice(
            id: lampID, name: "bedroom-lamp", profileID: "generic-rgbcw-light", category: .light, transport: .mqtt,
            productID: "keyabc123")
    }

    static var diffuser: TuyaDevice {
        TuyaDevice(
            id: diffuserID, name: "desk-diffuser", profileID: "aroma-diffuser", category: .diffuser, transport: .ble)
    }

    static func dp(_ id: Int) -> DataPointID { DataPointID(id)! }

    /// One DP of every type, with edge values.
    static var everyType: DataPoints {
        [
            dp(1): .bool(true),
            dp(2): .bool(false),
            dp(3): .value(Int32.min),
            dp(4): .value(Int32.max),
            dp(5): .string("hello \"world\"\n\u{1F600}"),
            dp(6): .enumeration("large"),
            dp(7): .bitmap(UInt32.max),
            dp(8): .raw([0x00, 0xFF, 0x10, 0xAB]),
            dp(9): .raw([]),
            dp(10): .string(""),
            dp(255): .enumeration("1"),
            dp(254): .value(0),
        ]
    }
}

/// File mode bits of a path, from stat(2).
func permissionsOf(_ path: String) -> Int {
    var info = stat()
    guard stat(path, &info) == 0 else { return -1 }
    return Int(info.st_mode & 0o777)
}
