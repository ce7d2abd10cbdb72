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

    /// One profile file of a folder, read by the caller: its path and its text, or why it
    /// could not be read.
    public struct ProfileFile: Sendable {
        public var path: String
        public var text: Result<String, ProfileError>

        public init(path: String, text: Result<String, ProfileError>) {
            self.path = path
            self.text = text
        }
    }

    /// Adds the profiles of one folder, files in name order: each is parsed, a broken one
    /// is recorded in `errors`, a second file with an id already seen in this folder is
    /// reported, and a profile replaces an earlier folder's with the same id. A profile without
    /// `frame_gap_ms` gets `defaultFrameGap` milliseconds. Reading the
    /// files is the caller's (`ProfileLibrary.load(directories:)` in Storage).
    public mutating func add(
        folder files: [ProfileFile], defaultFrameGap: Int = DeviceProfile.defaultFrameGapMilliseconds
    ) {
        var sourceByID: [String: String] = [:]
        for file in files {
            do throws(ProfileError) {
                let profile = try ProfileLoader.parse(
                    yaml: file.text.get(), source: file.path, defaultFrameGap: defaultFrameGap)
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

    /// Records a problem found while reading the profile folders (a folder that cannot be listed).
    public mutating func record(_ error: ProfileError) {
        errors.append(error)
    }
}
