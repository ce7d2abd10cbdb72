import Timing
import Testing
import DeviceSimulator
import YoullTestSupport

@testable import MQTTLink

/// Pure tests: URL parsing, redaction and backoff. No broker.
@Suite("MQTT configuration")
struct MQTTConfigurationTests {
    @Test("an mqtt URL gives host, port, username and password")
    func parsesPlainURL() throws {
        let configuration = try MQTTConfiguration(url: "mqtt://gateway:s3cret@broker.lan:1884")
        #expect(configuration.host == "broker.lan")
        #expect(configuration.port == 1884)
        #expect(configuration.username == "gateway")
        #expect(configuration.password == "s3cret")
        #expect(configuration.tls == nil)
        #expect(configuration.tcpNoDelay)
        #expect(configuration.maxInflight == 20)
    }

    @Test("an mqtts URL turns on TLS with the system CA store and defaults to port 8883")
    func parsesTLSURL() throws {
        let configuration = try MQTTConfiguration(url: "mqtts://broker.example.com")
        #expect(configuration.port == 8883)
        #expect(configuration.tls == MQTTConfiguration.TLS(caFile: nil))
        let plain = try MQTTConfiguration(url: "mqtt://broker.example.com")
        #expect(plain.port == 1883)
        #expect(plain.username == nil)
    }

    @Test("percent-encoded credentials are decoded")
    func decodesCredentials() throws {
        let configuration = try MQTTConfiguration(url: "mqtt://home%40gw:p%3Ass@127.0.0.1:1883")
        #expect(configuration.username == "home@gw")
        #expect(configuration.password == "p:ss")
    }

    @Test(
        "bad URLs are rejected with a reason",
        arguments: [
            ("http://broker:1883", "unsupported scheme"),
            ("broker:1883", "scheme"),
            ("mqtt://:1883", "missing host"),
            ("mqtt://broker:99999", "port"),
            ("mqtt://broker/topic", "path"),
            ("mqtt://:pw@broker", "username"),
            ("mqtt://bro ker:1883", "host"),
            ("mqtt://bücher.example", "xn--"),
            ("mqtt://broker:18a3", "port"),
            ("mqtt://broker:-1", "port"),
            ("mqtt://gw:p%zz@broker", "%-escape"),
            ("mqtt://gw:%ff%fe@broker", "UTF-8"),
            ("mqtt://broker?clean=1", "query"),
            ("mqtt://broker#x", "fragment"),
            ("mqtt://[::1:1883", "unclosed"),
            ("mqtt://[broker]:1883", "IPv6"),
            ("mqtt://[::1]x", "after the host"),
            ("://broker", "scheme"),
        ]
    )
    func rejectsBadURL(url: String, reason: String) {
        #expect {
            try MQTTConfiguration(url: url)
        } throws: { error in
            guard case .invalidURL(_, let why) = error as? MQTTError else { return false }
            return why.contains(reason)
        }
    }

    @Test("IPv6 brokers are written in brackets, with or without a port")
    func ipv6() throws {
        let withPort = try MQTTConfiguration(url: "mqtt://[::1]:1884")
        #expect(withPort.host == "::1")
        #expect(withPort.port == 1884)
        let bare = try MQTTConfiguration(url: "mqtts://[fe80::1]/")
        #expect(bare.host == "fe80::1")
        #expect(bare.port == 8883)
    }

    @Test("a scheme in capitals and a trailing slash are accepted")
    func lenientForms() throws {
        let configuration = try MQTTConfiguration(url: "MQTT://broker.lan:1883/")
        #expect(configuration.host == "broker.lan")
        #expect(configuration.port == 1883)
        #expect(configuration.tls == nil)
    }

    @Test("mangled broker URLs give an error or a usable broker, and never show the password")
    func mangledURLs() throws {
        var generator = SeededGenerator(seed: 0x5EED_0B40_CE55)
        let seeds = [
            "mqtt://gw:s3cret@broker.lan:1884", "mqtts://[fe80::1]:8883/", "mqtt://h%40me:p%3A@10.0.0.2",
        ].map { Array($0.utf8) }
        var accepted = 0
        for round in 0..<4000 {
            var bytes = seeds[round % seeds.count]
            for _ in 0..<Int.random(in: 1...3, using: &generator) { bytes = generator.mutate(bytes) }
            let text = String(decoding: bytes, as: UTF8.self)
            guard let parsed = try? MQTTConfiguration(url: text) else { continue }
            accepted += 1
            // A host a socket can be opened to: ASCII, no spaces, no URL punctuation.
            #expect(!parsed.host.isEmpty && parsed.host.unicodeScalars.allSatisfy { $0.isASCII && $0 != " " })
            #expect(!parsed.host.contains("@") && !parsed.host.contains("/"), "\(text)")
            #expect((1...65535).contains(parsed.port), "\(text)")
            if let password = parsed.password, !password.isEmpty {
                #expect(parsed.username?.isEmpty == false, "\(text)")
                #expect(parsed.description.contains(":***@"), "\(text)")
            }
        }
        #expect(accepted > 100, "the mutations should leave many URLs valid")
    }

    @Test("the password never appears in descriptions, mirrors or URL errors")
    func hidesPassword() throws {
        let configuration = try MQTTConfiguration(url: "mqtt://gateway:hunter2@broker:1883")
        #expect(configuration.description == "mqtt://gateway:***@broker:1883")
        var dumped = ""
        dump(configuration, to: &dumped)
        #expect(!dumped.contains("hunter2"))
        #expect(!String(describing: configuration).contains("hunter2"))
        do {
            _ = try MQTTConfiguration(url: "ftp://gateway:hunter2@broker:1883")
            Issue.record("expected an error")
        } catch {
            #expect(!error.description.contains("hunter2"))
            #expect(error.description.contains("gateway:***@broker"))
        }
    }

    @Test(
        "a password holding '#', '/' or '?' is refused with how to write it, '@' is read whole; neither is ever quoted"
    )
    func passwordWithURLDelimiters() throws {
        let withAt = try MQTTConfiguration(url: "mqtt://gw:s3cr@et@broker:1883")
        #expect(withAt.password == "s3cr@et" && withAt.host == "broker")
        #expect(withAt.description == "mqtt://gw:***@broker:1883")
        for secret in ["s3cr#et", "s3cr/et", "s3cr?et"] {
            do {
                _ = try MQTTConfiguration(url: "mqtt://gw:\(secret)@broker:1883")
                Issue.record("expected an error")
            } catch {
                #expect(!error.description.contains("s3cr") && !error.description.contains("et@"), "\(error)")
                #expect(error.description.contains("percent-encode them (%2F, %3F, %23)"), "\(error)")
            }
        }
        // A URL that is not one, with credentials, is quoted redacted too.
        #expect(MQTTConfiguration.redacting("gw:s3cret@broker") == "gw:***@broker")
        for secret in ["s3cr#et", "s3cr/et", "s3cr?et", "s3cr@et"] {
            do {
                _ = try MQTTConfiguration(url: "mqtt://gw:\(secret)@broker:1883/x?y")
                Issue.record("expected an error")
            } catch {
                #expect(!error.description.contains("s3cr") && !error.description.contains("et@"), "\(error)")
                #expect(error.description.contains("gw:***@broker"), "\(error)")
            }
        }
    }

    @Test("reconnect delays double from the minimum up to the cap")
    func backoffDoublesAndCaps() {
        let policy = Backoff(initial: .milliseconds(100), maximum: .seconds(1), jitter: 0.5)
        let delays = (0..<6).map { policy.delay(retry: $0, unitRandom: 0) }
        #expect(
            delays == [
                .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1),
                .seconds(1),
            ])
        #expect(policy.delay(retry: 10_000, unitRandom: 0) == .seconds(1))
    }

    @Test("jitter shortens a delay by at most its fraction")
    func jitterStaysInBounds() {
        let policy = Backoff(initial: .seconds(1), maximum: .seconds(8), jitter: 0.2)
        #expect(policy.delay(retry: 0, unitRandom: 0.999_999) > .milliseconds(800))
        #expect(policy.delay(retry: 0, unitRandom: 0.5) == .milliseconds(900))
        #expect(policy.delay(retry: 3, unitRandom: 1) == .milliseconds(6400))
    }

    @Test("errors a user can act on name the broker and the fix")
    func errorMessages() {
        #expect(
            MQTTError.connectionRefused(host: "127.0.0.1", port: 1883).description.contains(
                "is mosquitto running on 127.0.0.1:1883?"))
        #expect(MQTTError.connack(5, username: "gw") == .notAuthorised(username: "gw"))
        #expect(MQTTError.connack(135, username: nil) == .notAuthorised(username: nil))
        #expect(
            MQTTError.connack(2, username: nil)
                == .connectionRejected(code: 2, reason: "Connection Refused: identifier rejected."))
    }
}
