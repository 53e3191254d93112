/// The exit statuses of sysexits(3) the command line ends with, and the one place a
/// library's error kind becomes one.
enum ExitStatus: Int32, Sendable {
    case usage = 64
    case dataError = 65
    case noInput = 66
    case unavailable = 69
    case software = 70
    case ioError = 74
    case noPermission = 77
    /// Stopped by Ctrl-C before there was anything to keep (128 + SIGINT, as shells report it).
    case cancelled = 130
    /// Standard output's reader left (128 + SIGPIPE, as shells report a command it ended).
    case outputClosed = 141
}

import IntervalProLaunch

extension ExitStatus {
    init(_ kind: LaunchError.Kind) {
        self =
            switch kind {
            case .usage: .usage
            case .invalidData: .dataError
            case .missingInput: .noInput
            case .unavailable: .unavailable
            case .internalError: .software
            case .io: .ioError
            case .refused: .noPermission
            case .cancelled: .cancelled
            case .outputClosed: .outputClosed
            }
    }
}
