/// Runs `body`, then `cleanup` whether `body` returned or threw: an async `defer`, for tests
/// that must close what they opened (sockets, simulators, controllers) on every path.
public func withCleanup<T>(
    _ body: () async throws -> T, cleanup: () async -> Void
) async throws -> T {
    let result: T
    do {
        result = try await body()
    } catch {
        await cleanup()
        throw error
    }
    await cleanup()
    return result
}
