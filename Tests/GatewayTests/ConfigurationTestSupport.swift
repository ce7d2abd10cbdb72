import Foundation

@testable import Gateway
import YoullTestSupport

/// Files for the loader without touching the real /etc or home directory.
enum FakeFiles {
    static func access(_ files: [String: String], readable: Set<String> = []) -> FileAccess {
        FileAccess(
            exists: { files[$0] != nil },
            read: { path, maximumSize throws(InvalidValue) in
                guard let text = files[path] else { throw InvalidValue("no such file") }
                guard text.utf8.count <= maximumSize else { throw InvalidValue("file is too large") }
                return text
            },
            isReadable: { readable.contains($0) })
    }
}

enum ConfigFixture {
    static let userEnvironment = ["HOME": "/home/ada"]
    static let userDefaults = ConfigurationLoader.defaults(environment: userEnvironment, isService: false)

    static func parse(_ yaml: String) throws(ConfigurationError) -> GatewayConfiguration {
        try ConfigurationLoader.parse(yaml: yaml, source: "config.yaml", defaults: userDefaults)
    }

    /// The error `yaml` is refused with; records an issue when it is accepted.
    static func error(_ yaml: String) -> ConfigurationError? {
        do throws(ConfigurationError) {
            _ = try parse(yaml)
            return nil
        } catch {
            return error
        }
    }

    static func error(environment: [String: String]) -> ConfigurationError? {
        do throws(ConfigurationError) {
            _ = try ConfigurationLoader.apply(environment: environment, to: userDefaults)
            return nil
        } catch {
            return error
        }
    }

    static var exampleYAML: String {
        let url = URL(fileURLWithPath: Repository.path("config.example.yaml"))
        return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }
}
