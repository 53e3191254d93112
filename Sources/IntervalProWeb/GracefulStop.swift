import ServiceLifecycle

extension ServiceGroup {
    /// Runs the services until cancelled, or until `stopping` ends: then stops them gracefully
    /// (a server takes no new connections and answers the requests in flight, cancelled after
    /// the group's `maximumGracefulShutdownDuration`) and returns once they have ended.
    func run(stoppingGracefullyWhen stopping: AsyncStream<Void>?) async throws {
        guard let stopping else { return try await run() }
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await self.run()
                return true
            }
            group.addTask {
                for await _ in stopping {}
                if !Task.isCancelled { await self.triggerGracefulShutdown() }
                return false
            }
            while let servicesEnded = try await group.next() {
                if servicesEnded { group.cancelAll() }
            }
        }
    }
}
