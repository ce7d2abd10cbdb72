import Foundation

/// Every device profile the gateway knows, from the installed `devices/` folder and the
/// user's own folder.
///
/// Loading never fails as a whole: a broken file is recorded in `errors` and the others
/// still load, because one typo in a user profile must not take every device offline.
/// Folders are read in order and a later folder's profile replaces an earlier one with the
/// same id, so a user can override an installed profile by copying and editing it.
public struct ProfileLibrary: Hashable, Sendable {
    private var byID: [String: DeviceProfile]
    /// Problems found while loading, in the order the files were read.
    public private(set) var errors: [ProfileError]

    /// Builds a library from profiles in priority order: a later profile replaces an earlier one with the same id.
    public init(profiles: [DeviceProfile] = [], errors: [ProfileError] = []) {
        byID = [:]
        for profile in profiles { byID[profile.id] = profile }
        self.errors = errors
    }

    /// All profiles, sorted by id.
    public var all: [DeviceProfile] { byID.values.sorted { $0.id < $1.id } }

    public func profile(id: String) -> DeviceProfile? { byID[id] }

    /// Profiles listing this Tuya product id, sorted by id.
    public func profiles(forProductID productID: String) -> [DeviceProfile] {
        all.filter { $0.productIDs.contains(productID) }
    }

    /// Picks the profile for a newly seen device.
    ///
    /// A profile listing the product id wins. Otherwise the DP ids the device reported
    /// decide: only profiles that declare every seen id qualify, and the one with the
    /// fewest DPs the device did not report (the closest fit) wins, ties broken by id.
    /// Returns nil when nothing qualifies, so pairing can ask the user instead of guessing.
    public func match(productID: String?, dataPointIDs: Set<DataPointID>) -> DeviceProfile? {
        if let productID {
            let listed = profiles(forProductID: productID)
            if !listed.isEmpty {
                // Several profiles for one product: prefer the one that fits the reported DPs.
                return Self.closestFit(in: listed, to: dataPointIDs) ?? listed.first
            }
        }
        guard !dataPointIDs.isEmpty else { return nil }
        return Self.closestFit(in: all, to: dataPointIDs)
    }

    private static func closestFit(in candidates: [DeviceProfile], to seen: Set<DataPointID>) -> DeviceProfile? {
        var best: (profile: DeviceProfile, unseen: Int)?
        for profile in candidates {
            let declared = Set(profile.dataPoints.map(\.id))
            guard seen.isSubset(of: declared) else { continue }
            let unseen = declared.count - seen.count
            if best == nil || unseen < best?.unseen ?? Int.max { best = (profile, unseen) }
        }
        return best?.profile
    }

    /// Reads every `*.yaml` and `*.yml` file (not recursing) in each directory, in order.
    ///
    /// A directory that does not exist is skipped silently (the user folder is optional);
    /// one that exists but cannot be listed is reported. Within one directory files are
    /// read in name order and a second file with an id already seen there is reported.
    public static func load(directories: [URL]) -> ProfileLibrary {
        var library = ProfileLibrary()
        for directory in directories {
            library.loadDirectory(directory)
        }
        return library
    }

    private mutating func loadDirectory(_ directory: URL) {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: directory.path, isDirectory: &isDirectory) else { return }
        let names: [String]
        do {
            guard isDirectory.boolValue else {
                throw CocoaError(.fileReadUnknown)
            }
            names = try manager.contentsOfDirectory(atPath: directory.path)
        } catch {
            errors.append(
                ProfileError(
                    source: directory.path,
                    reason: "cannot list this profile folder; check that it is a readable directory"))
            return
        }
        var sourceByID: [String: String] = [:]
        for name in names.sorted() where Self.isProfileFileName(name) {
            let file = directory.appendingPathComponent(name)
            do throws(ProfileError) {
                let profile = try ProfileLoader.parse(yaml: Self.readText(of: file), source: file.path)
                if let earlier = sourceByID[profile.id] {
                    throw ProfileError(
                        source: file.path, keyPath: "id",
                        reason:
                            "profile id '\(profile.id)' is already used by \(earlier) in the same folder; rename one")
                }
                sourceByID[profile.id] = file.path
                byID[profile.id] = profile
            } catch {
                errors.append(error)
            }
        }
    }

    private static func isProfileFileName(_ name: String) -> Bool {
        guard !name.hasPrefix(".") else { return false }
        let lowered = name.lowercased()
        return lowered.hasSuffix(".yaml") || lowered.hasSuffix(".yml")
    }

    /// Reads at most `ProfileLoader.maximumSize + 1` bytes and requires strict UTF-8.
    private static func readText(of file: URL) throws(ProfileError) -> String {
        // A FIFO or device node named *.yaml would block or never end.
        guard (try? file.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true else {
            throw ProfileError(source: file.path, reason: "not a regular file; profiles are plain .yaml files")
        }
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            data = try handle.read(upToCount: ProfileLoader.maximumSize + 1) ?? Data()
        } catch {
            throw ProfileError(source: file.path, reason: "cannot read the file; check that it exists and is readable")
        }
        guard data.count <= ProfileLoader.maximumSize else {
            throw ProfileError(
                source: file.path,
                reason: "file is larger than \(ProfileLoader.maximumSize) bytes; profiles are a few kilobytes")
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw ProfileError(source: file.path, reason: "file is not valid UTF-8 text; save it as UTF-8")
        }
        return text
    }
}
