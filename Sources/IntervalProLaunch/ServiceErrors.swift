public import IntervalProNetwork
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


extension ServiceContext {
    /// The context of the accounts in the standard place ($XDG_CONFIG_HOME/intervalpro/
    /// accounts.json), for the command line and the page alike.
    public static func standard(verbose: Bool = false) throws -> ServiceContext {
        let file = try standardAccountFile()
        return ServiceContext(file: file, accounts: try load(file), verbose: verbose)
    }

    public static func standardAccountFile() throws -> AccountFile {
        guard let file = AccountFile.standard() else {
            throw LaunchError("no configuration folder: set XDG_CONFIG_HOME or HOME", kind: .unavailable)
        }
        return file
    }

    /// The accounts in `file`, or what is wrong with it (by JSON path).
    public static func load(_ file: AccountFile) throws -> Accounts {
        do {
            return try file.load()
        } catch {
            switch error {
            case .unreadable(let error): throw LaunchError(error)
            case .malformed(let path, let problem):
                throw LaunchError("\(path): \(problem.path): \(problem.message)", kind: .invalidData)
            }
        }
    }
}

/// Where an upload goes, as `upload --to`, `run --upload` and the page's upload name it.
public enum UploadDestination: String, CaseIterable, Sendable {
    case intervalsICU = "intervals.icu"
    case strava
    /// Every account added.
    case all

    /// The one service named; nil for all.
    public var service: Service? {
        switch self {
        case .intervalsICU: .intervalsICU
        case .strava: .strava
        case .all: nil
        }
    }
}

extension Uploader {
    /// The services an upload goes to: the one named, or every account added; each must
    /// have an account.
    public static func destinations(_ destination: UploadDestination, accounts: Accounts) throws -> [Service] {
        let services = destination.service.map { [$0] } ?? accounts.services
        if services.isEmpty {
            throw LaunchError(
                "no accounts yet: add one with `intervalpro account add intervals.icu ...` or `... strava ...`", kind: .refused)
        }
        for service in services where !accounts.services.contains(service) {
            throw LaunchError(ServiceContext.noAccount(service))
        }
        return services
    }
}
