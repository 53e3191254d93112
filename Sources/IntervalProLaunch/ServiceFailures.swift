public import IntervalProServices

extension Failure {
    /// A service's failure, with the exit status scripts can act on: 69 try later, 65 the
    /// service refused the file, 77 the credential, 66 no such thing there.
    public init(_ failure: ServiceFailure) {
        let status: ExitStatus =
            switch failure.kind {
            case .unavailable: .unavailable
            case .rejected: .dataError
            case .credentials: .noPermission
            case .notFound: .noInput
            }
        self.init(failure.description, status: status)
    }
}

/// Runs a service call, turning its failure into the command's.
public func serviceCall<T>(_ body: () async throws(ServiceFailure) -> T) async throws -> T {
    do {
        return try await body()
    } catch {
        throw Failure(error)
    }
}

