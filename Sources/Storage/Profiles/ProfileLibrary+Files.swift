import Foundation
import TuyaCore

extension ProfileLibrary {
    /// Reads every `*.yaml` and `*.yml` file (not recursing) in each directory, in order,
    /// into a library (TuyaCore parses; this is where the files are read).
    ///
    /// A directory that does not exist is skipped silently (the user folder is optional);
    /// one that exists but cannot be listed is reported. Within one directory files are
    /// read in name order and a second file with an id already seen there is reported.
    public static func load(
        directories: [URL], defaultFrameGap: Int = DeviceProfile.defaultFrameGapMilliseconds
    ) -> ProfileLibrary {
        var library = ProfileLibrary()
        for directory in directories {
            switch ProfileFolder.files(in: directory) {
            case .success(let files): library.add(folder: files, defaultFrameGap: defaultFrameGap)
            case .failure(let error): library.record(error)
            }
        }
        return library
    }
}

/// One profile folder on disk.
enum ProfileFolder {
    /// The folder's profile files in name order, each read; an empty list for a folder
    /// that does not exist.
    static func files(in directory: URL) -> Result<[ProfileLibrary.ProfileFile], ProfileError> {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: directory.path, isDirectory: &isDirectory) else { return .success([]) }
        guard isDirectory.boolValue, let names = try? manager.contentsOfDirectory(atPath: directory.path) else {
            return .failure(
                ProfileError(
                    source: directory.path,
                    reason: "cannot list this profile folder; check that it is a readable directory"))
        }
        return .success(
            names.sorted().filter(isProfileFileName).map { name in
                let file = directory.appendingPathComponent(name)
                return ProfileLibrary.ProfileFile(
                    path: file.path, text: Result { () throws(ProfileError) in try readText(of: file) })
            })
    }

    static func isProfileFileName(_ name: String) -> Bool {
        guard !name.hasPrefix(".") else { return false }
        let lowered = name.lowercased()
        return lowered.hasSuffix(".yaml") || lowered.hasSuffix(".yml")
    }

    /// Reads at most `ProfileLoader.maximumSize + 1` bytes and requires strict UTF-8.
    static func readText(of file: URL) throws(ProfileError) -> String {
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
