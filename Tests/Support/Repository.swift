import Foundation
import TuyaCore
import Storage

/// Where the checkout is, for tests that read its files (`devices/`, `udev/`, scripts,
/// Python helpers). Found once from this file's own path.
public enum Repository {
    /// The checkout's root directory (the one holding Package.swift).
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// The shipped device profiles.
    public static var devicesDirectory: URL { root.appendingPathComponent("devices") }

    /// The shipped profiles, loaded once for the whole test process.
    public static let shippedProfiles: ProfileLibrary = ProfileLibrary.load(directories: [devicesDirectory])

    /// A file or directory in the checkout, by its path relative to the root.
    public static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }
}
