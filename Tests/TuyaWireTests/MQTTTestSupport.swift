import TuyaWire

/// The error a throwing call raised, or nil if it returned.
func wireError<T>(_ body: () throws(WireError) -> T) -> WireError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}
