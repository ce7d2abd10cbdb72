import LocalBroker
import Timing

@testable import MQTTLink

/// The MQTT client tests use the project's private broker: a real mosquitto on
/// 127.0.0.1 and a free port (with pause/resume, password file and TLS as needed).
typealias TestBroker = LocalBroker

/// A client of `broker` for the tests: `id` (nil: a random id and a clean session), reconnecting
/// after `retryAfter` (at most 200 ms, unless longer is asked), then `configure`d.
func client(
    _ broker: TestBroker, _ id: String? = nil, retryAfter: Duration = .milliseconds(20),
    configure: (inout MQTTConfiguration) -> Void = { _ in }
) throws -> MQTTClient {
    var configuration = MQTTConfiguration(
        host: "127.0.0.1", port: broker.port, clientID: id,
        reconnect: Backoff(initial: retryAfter, maximum: max(retryAfter, .milliseconds(200)), jitter: 0.2))
    configure(&configuration)
    return try MQTTClient(configuration: configuration)
}
