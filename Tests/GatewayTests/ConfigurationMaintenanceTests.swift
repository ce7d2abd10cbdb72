import Foundation
import Testing

@testable import Gateway

/// Pure: the `maintenance:` section of the configuration file.
@Suite("The maintenance configuration")
struct ConfigurationMaintenanceTests {
    @Test("a webhook with headers and retry timings is read; its description hides the query and header values")
    func webhook() throws {
        let configuration = try ConfigFixture.parse(
            """
            maintenance:
              webhook:
                url: https://hooks.example.com/youll?token=s3cret
                headers:
                  Authorization: Bearer t0ken-value
                retry_initial: 200ms
                retry_max: 10s
            """)
        let webhook = try #require(configuration.maintenance.webhook)
        #expect(configuration.maintenance.enabled)
        #expect(webhook.url.host == "hooks.example.com")
        #expect(webhook.headers == ["Authorization": "Bearer t0ken-value"])
        #expect(webhook.retryInitial == .milliseconds(200))
        #expect(webhook.retryMaximum == .seconds(10))
        for shown in [webhook.description, "\(configuration)", String(reflecting: configuration)] {
            #expect(!shown.contains("s3cret"))
            #expect(!shown.contains("t0ken-value"))
        }
    }

    @Test("bad maintenance settings name the key and line, and never quote a secret")
    func errors() throws {
        let cases: [(String, String, Int)] = [
            ("maintenance:\n  webhook:\n    url: ftp://x.example.com/\n", "maintenance.webhook.url", 3),
            ("maintenance:\n  webhook:\n    url: https://user:pw0rd@x.example.com/\n", "maintenance.webhook.url", 3),
            ("maintenance:\n  webhook:\n    headers: {A: b}\n", "maintenance.webhook", 3),
            (
                "maintenance:\n  webhook:\n    url: https://x.example.com/\n    headers:\n      Host: x\n",
                "maintenance.webhook.headers.Host", 5
            ),
            (
                "maintenance:\n  webhook:\n    url: https://x.example.com/\n    headers:\n      X-Key: \"s3cret\\n\"\n",
                "maintenance.webhook.headers.X-Key", 5
            ),
            (
                "maintenance:\n  webhook:\n    url: https://x.example.com/\n    retry_initial: 5s\n    retry_max: 1s\n",
                "maintenance.webhook", 3
            ),
            ("maintenance:\n  enabeld: true\n", "maintenance.enabeld", 2),
        ]
        for (yaml, keyPath, line) in cases {
            let error = try #require(ConfigFixture.error(yaml), "\(yaml)")
            #expect(error.keyPath == keyPath, "\(yaml) → \(error)")
            #expect(error.line == line, "\(yaml) → \(error)")
            #expect(!error.description.contains("pw0rd"))
            #expect(!error.description.contains("s3cret"))
        }
    }
}
