import CMosquitto

/// `mosquitto_lib_init` must run exactly once per process; a global `let` is initialised lazily
/// and thread-safely on first use.
private let libraryInitialisation: Int32 = mosquitto_lib_init()

/// A `struct mosquitto *` configured from an `MQTTConfiguration`.
///
/// `@unchecked Sendable` is sound because of how `NetworkLoop` uses it: libmosquitto is built
/// with threading (Debian: WITH_THREADING), so its entry points lock their own state; the pointer
/// is used by the network thread for I/O and by the owning actor for publish/subscribe through
/// `NetworkLoop.withMosquitto`, which holds the loop's lock and refuses once the loop is stopping;
/// `mosquitto_destroy` runs once, on the network thread, only after it set the stop flag under the
/// same lock.
struct MosquittoHandle: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Creates and configures the handle; `userdata` is the retained `CallbackBox`.
    static func make(
        configuration: MQTTConfiguration,
        userdata: UnsafeMutableRawPointer
    ) throws(MQTTError) -> MosquittoHandle {
        _ = libraryInitialisation
        // A stable client id asks for a persistent session; a random one must be clean.
        guard let mosq = mosquitto_new(configuration.clientID, configuration.clientID == nil, userdata)
        else {
            throw .invalidConfiguration(
                "libmosquitto could not create a client (client id longer than 65535 bytes?)")
        }
        do {
            try configure(mosq, configuration)
        } catch {
            mosquitto_destroy(mosq)
            throw error
        }
        CallbackBox.install(on: mosq)
        return MosquittoHandle(pointer: mosq)
    }

    private static func configure(_ mosq: OpaquePointer, _ configuration: MQTTConfiguration)
        throws(MQTTError)
    {
        // Only queue from other threads; NetworkLoop is the one that writes to the socket.
        mosquitto_threaded_set(mosq, true)
        try check(
            mosquitto_int_option(mosq, MOSQ_OPT_TCP_NODELAY, configuration.tcpNoDelay ? 1 : 0),
            "tcpNoDelay")
        guard (1...65535).contains(configuration.maxInflight) else {
            throw .invalidConfiguration("maxInflight \(configuration.maxInflight) is outside 1–65535")
        }
        // MOSQ_OPT_SEND_MAXIMUM applies to MQTT 5 only; this is the MQTT 3.1.1 window.
        try check(
            mosquitto_max_inflight_messages_set(mosq, UInt32(configuration.maxInflight)), "maxInflight")
        if let username = configuration.username {
            try check(mosquitto_username_pw_set(mosq, username, configuration.password), "username")
        }
        if let will = configuration.lastWill {
            let rc = will.payload.withUnsafeBytes { bytes in
                mosquitto_will_set(
                    mosq, will.topic, Int32(bytes.count), bytes.baseAddress, will.qos.rawValue, will.retain)
            }
            if rc == MOSQ_ERR_INVAL.rawValue || rc == MOSQ_ERR_MALFORMED_UTF8.rawValue {
                throw .invalidTopic(will.topic)
            }
            try check(rc, "lastWill")
        }
        if let tls = configuration.tls {
            try configureTLS(mosq, tls)
        }
    }

    private static func configureTLS(_ mosq: OpaquePointer, _ tls: MQTTConfiguration.TLS)
        throws(MQTTError)
    {
        if (tls.certFile == nil) != (tls.keyFile == nil) {
            throw .invalidConfiguration("TLS certFile and keyFile go together: give both or neither")
        }
        if tls.caFile == nil {
            try check(mosquitto_int_option(mosq, MOSQ_OPT_TLS_USE_OS_CERTS, 1), "TLS system CA store")
        }
        let rc = mosquitto_tls_set(mosq, tls.caFile, nil, tls.certFile, tls.keyFile, nil)
        if rc != MOSQ_ERR_SUCCESS.rawValue {
            let files = [tls.caFile, tls.certFile, tls.keyFile].compactMap { $0 }.joined(separator: ", ")
            throw .invalidConfiguration(
                "TLS files cannot be read (\(files)): \(String(cString: mosquitto_strerror(rc)))")
        }
        // Verify the broker's host name against its certificate; never optional here.
        try check(mosquitto_tls_insecure_set(mosq, false), "TLS host name verification")
    }

    private static func check(_ rc: Int32, _ setting: String) throws(MQTTError) {
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            throw .invalidConfiguration("\(setting): \(String(cString: mosquitto_strerror(rc)))")
        }
    }
}
