public import IntervalProServices

extension LaunchError {
    /// A service's failure, by what the caller can do about it: try later, the service
    /// refused the file, the credential, no such thing there.
    public init(_ failure: ServiceError) {
        let kind: Kind =
            switch failure.kind {
            case .unavailable: .unavailable
            case .rejected: .invalidData
            case .credentials: .refused
            case .notFound: .missingInput
            }
        self.init(failure.description, kind: kind)
    }
}

/// Runs a service call, turning its failure into the command's.
public func serviceCall<T>(_ body: () async throws(ServiceError) -> T) async throws -> T {
    do {
        return try await body()
    } catch {
        throw LaunchError(error)
    }
}

