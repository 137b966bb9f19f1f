package import Foundation
package import Logging
package import ServiceLifecycle

/// Runs a fake server (fake X, fake Mastodon) on a free loopback port for the duration of a body.
package enum LoopbackServer {
    /// Starts the service `application(onStarted)` makes, passes `body` its base URL (`http://127.0.0.1:PORT`),
    /// then shuts it down gracefully (requests in flight are answered), also when `body` throws.
    package static func withRunning<Service: ServiceLifecycle.Service, Result: Sendable>(
        isolation: isolated (any Actor)? = #isolation,
        logger: Logger,
        _ application: (_ onStarted: @escaping @Sendable (Int) async -> Void) -> Service,
        _ body: (URL) async throws -> Result
    ) async throws -> Result {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let group = ServiceGroup(
            services: [
                application { port in
                    continuation.yield(port)
                    continuation.finish()
                }
            ], logger: logger)
        return try await withThrowingTaskGroup(of: Result?.self) { tasks in
            tasks.addTask {
                try await group.run()
                return nil
            }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw CancellationError() }
            do {
                let result = try await body(URL(string: "http://127.0.0.1:\(port)")!)
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                return result
            } catch {
                await group.triggerGracefulShutdown()
                try? await tasks.waitForAll()
                throw error
            }
        }
    }
}
