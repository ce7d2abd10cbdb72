import Foundation
import Gateway
import TuyaController
import TuyaCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How `pair mqtt` and `rekey` wait for the device: on a terminal a line on stderr counts
/// the seconds (nothing when stdout is a pipe); with `--timeout` the daemon is asked again
/// whenever its own pairing window passes in silence, until the time is spent; silence
/// ends in one line that says what causes it.
enum PairingWait {
    /// `waiting for lamp to answer… 7 s of 30 s (Ctrl-C to stop)`.
    static func line(device: String, elapsed: Int, limit: Int) -> String {
        "waiting for \(BridgeText.printable(device)) to answer… \(elapsed) s of \(limit) s (Ctrl-C to stop)"
    }

    /// Why a device says nothing, and what to do about it: one line.
    static func silence(device: String, seconds: Int) -> String {
        "no answer from the device \(BridgeText.printable(device)) within \(seconds) s. A device is silent when it is "
            + "off, not connected to this broker, or given a wrong local key (a device that cannot decrypt the "
            + "query does not answer): check that it is powered and online in the Tuya app, that it uses the "
            + "broker in mqtt.url, and its local key (tinytuya wizard); --timeout SECONDS waits longer"
    }

    /// The elapsed-time line is for a person watching a terminal, never for a pipe or --json.
    static func showsProgress(json: Bool) -> Bool {
        !json && isatty(STDOUT_FILENO) == 1 && isatty(STDERR_FILENO) == 1
    }

    /// Sends `verb` and waits for its answer. With `askAgain` (the user gave --timeout), a
    /// "no answer" from the daemon is followed by another attempt while at least 2 s remain.
    static func ask(
        _ client: BridgeClient, _ verb: String, _ payload: [String: JSONValue], device: String, limit: Duration,
        askAgain: Bool, json: Bool
    ) async throws -> JSONValue {
        let clock = ContinuousClock()
        let start = clock.now
        let end = start + limit
        let seconds = Int(limit.components.seconds)
        let progress = showsProgress(json: json) ? Task { await count(device: device, limit: seconds) } : nil
        defer {
            if let progress {
                progress.cancel()
                FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
            }
        }
        while true {
            let outcome: Result<JSONValue, BridgeClientError>
            do {
                outcome = .success(try await client.request(verb, payload, timeout: end - clock.now))
            } catch {
                outcome = .failure(error)
            }
            switch outcome {
            case .success(let answer):
                return answer
            case .failure(.timedOut(let what, _)) where what.contains("/bridge/response/"):
                throw CLIError(silence(device: device, seconds: seconds))
            case .failure(.requestFailed(_, let message)) where message.contains(PairingOutcome.noAnswer.description):
                if askAgain, end - clock.now >= .seconds(2) { continue }
                let waited = Int((clock.now - start).components.seconds)
                throw CLIError(silence(device: device, seconds: askAgain ? seconds : waited))
            case .failure(let error):
                throw error
            }
        }
    }

    /// Redraws the waiting line once a second until cancelled.
    private static func count(device: String, limit: Int) async {
        var elapsed = 0
        while !Task.isCancelled {
            FileHandle.standardError.write(
                Data(("\r\u{1B}[K" + line(device: device, elapsed: elapsed, limit: limit)).utf8))
            do { try await Task.sleep(for: .seconds(1)) } catch { return }
            elapsed += 1
        }
    }
}
