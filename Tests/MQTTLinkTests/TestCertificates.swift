import Foundation

/// A throwaway CA and a server certificate for 127.0.0.1 made with the `openssl` CLI, plus an
/// unrelated CA that must not verify the server.
struct TestCertificates {
    let broker: TestBroker.TLSFiles
    let wrongCAFile: String

    init(in directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        let openssl = "/usr/bin/openssl"
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        for ca in ["ca", "wrong-ca"] {
            try TestBroker.run(
                openssl,
                ["req", "-x509"] + key + [
                    "-keyout", path("\(ca).key"), "-out", path("\(ca).crt"), "-days", "2",
                    "-subj", "/CN=youll test \(ca)",
                ]
            )
        }
        try TestBroker.run(
            openssl,
            ["req"] + key + [
                "-keyout", path("server.key"), "-out", path("server.csr"), "-subj", "/CN=127.0.0.1",
            ]
        )
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\n".write(
            toFile: path("san.ext"), atomically: true, encoding: .utf8)
        try TestBroker.run(
            openssl,
            [
                "x509", "-req", "-in", path("server.csr"), "-CA", path("ca.crt"), "-CAkey", path("ca.key"),
                "-CAcreateserial", "-out", path("server.crt"), "-days", "2", "-extfile", path("san.ext"),
            ]
        )
        broker = TestBroker.TLSFiles(
            caFile: path("ca.crt"), certFile: path("server.crt"), keyFile: path("server.key"))
        wrongCAFile = path("wrong-ca.crt")
    }
}
