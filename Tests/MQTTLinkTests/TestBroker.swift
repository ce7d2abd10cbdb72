import LocalBroker

/// The MQTT client tests use the project's private broker: a real mosquitto on
/// 127.0.0.1 and a free port (with pause/resume, password file and TLS as needed).
typealias TestBroker = LocalBroker
