import Foundation
import Testing

@testable import Gateway
import YoullTestSupport

/// Every ```yaml block in README.md is a configuration a reader may copy; each must load.
@Suite("README and example configurations")
struct ReadmeConfigurationTests {
    /// A fenced block and the README line its first YAML line is on.
    struct Block {
        var firstLine: Int
        var text: String
    }

    static func yamlBlocks(in markdown: String) -> [Block] {
        var blocks: [Block] = []
        var current: Block?
        for (index, line) in markdown.components(separatedBy: "\n").enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var block = current {
                if trimmed.hasPrefix("```") {
                    blocks.append(block)
                    current = nil
                } else {
                    block.text += line + "\n"
                    current = block
                }
            } else if trimmed == "```yaml" {
                current = Block(firstLine: index + 2, text: "")
            }
        }
        return blocks
    }

    @Test("every yaml block in the README loads with the configuration loader")
    func readmeBlocksLoad() throws {
        let readme = try String(contentsOfFile: Repository.path("README.md"), encoding: .utf8)
        let blocks = Self.yamlBlocks(in: readme)
        #expect(blocks.count >= 4, "found \(blocks.count) yaml blocks")
        for block in blocks {
            do throws(ConfigurationError) {
                _ = try ConfigFixture.parse(block.text)
            } catch {
                let line = error.line.map { block.firstLine + $0 - 1 } ?? block.firstLine
                Issue.record("README.md:\(line) (block from line \(block.firstLine)): \(error)")
            }
        }
    }

    @Test("the block finder reports each block's first line and skips other languages")
    func blockFinder() {
        let markdown = "# t\n```sh\nx: 1\n```\n\n```yaml\na: 1\nb: 2\n```\n"
        let blocks = Self.yamlBlocks(in: markdown)
        #expect(blocks.count == 1)
        #expect(blocks.first?.firstLine == 7)
        #expect(blocks.first?.text == "a: 1\nb: 2\n")
    }

    @Test("config.example.yaml at the repository root loads with the loader, from the file")
    func exampleFileLoads() throws {
        let path = Repository.path("config.example.yaml")
        let configuration = try ConfigurationLoader.load(
            path: path, environment: ConfigFixture.userEnvironment, isService: false)
        #expect(configuration.mqtt.username == "gateway")
        #expect(configuration.homeAssistant.enabled && configuration.metrics.enabled)
    }

    @Test(
        "switches take on/off, true/false and yes/no in the file, as in the YOULL_* variables",
        arguments: [
            ("on", true), ("off", false), ("true", true), ("false", false), ("yes", true), ("no", false),
            ("On", true), ("OFF", false),
        ])
    func switchWords(word: String, value: Bool) throws {
        let yaml = """
            metrics:
              enabled: \(word)
            home_assistant:
              enabled: \(word)
            lan:
              enabled: \(word)
            maintenance:
              enabled: \(word)
            timer:
              history: \(word)
              badges: \(word)
            """
        let file = try ConfigFixture.parse(yaml)
        #expect(file.metrics.enabled == value && file.homeAssistant.enabled == value)
        #expect(file.lan.enabled == value && file.maintenance.enabled == value)
        #expect(file.timer.history == value && file.timer.badges == value)
        let environment = try ConfigurationLoader.apply(
            environment: ["YOULL_HOME_ASSISTANT": word, "YOULL_LAN": word], to: ConfigFixture.userDefaults)
        #expect(environment.homeAssistant.enabled == value && environment.lan.enabled == value)
        #expect(try ConfigFixture.parse("ble:\n  enabled: \(word)\n").ble.mode == (value ? .on : .off))
    }

    @Test("a word that is not a switch is refused with the words that are, and its line")
    func notASwitch() throws {
        let error = try #require(ConfigFixture.error("metrics:\n  enabled: maybe\n"))
        #expect(error.keyPath == "metrics.enabled" && error.line == 2)
        #expect(error.reason.contains("expected on or off (true/false, yes/no"), "\(error)")
        #expect(error.reason.contains("'maybe'"), "\(error)")
    }
}
