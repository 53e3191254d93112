import ArgumentParser
import IntervalProCore
import IntervalProIO
import IntervalProLaunch
import IntervalProNetwork
import IntervalProServices

struct AccountCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "account",
        abstract: "Connect intervals.icu and Strava: today's planned runs in, finished sessions out.",
        discussion: """
            Accounts are kept in $XDG_CONFIG_HOME/intervalpro/accounts.json (mode 0600); their \
            keys and tokens are never printed.
            """,
        subcommands: [Add.self, List.self, Remove.self]
    )
}

extension AccountCommand {
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add (or replace) an account: intervals.icu with an API key, Strava by authorizing in a browser.",
            discussion: """
                intervals.icu: your athlete id and API key are at the bottom of \
                https://intervals.icu/settings. Leave out --api-key to type it (it then stays out \
                of your shell history).
                Strava: create an API application at https://www.strava.com/settings/api with \
                "Authorization Callback Domain" 127.0.0.1, then pass its client id (its secret is \
                asked for, or read from standard input; --client-secret puts it in your shell history). \
                The address to open is printed (and opened when a desktop is running); Strava \
                sends you back to http://127.0.0.1:PORT/callback, which finishes the setup.
                """
        )

        @Argument(help: "intervals.icu or strava.")
        var service: Service

        @Option(help: "intervals.icu: the athlete id (like i12345).")
        var athlete: String?

        @Option(help: "intervals.icu: the API key (read from standard input when left out).")
        var apiKey: String?

        @Flag(help: "intervals.icu: send every readiness measurement to the day's wellness (as readiness --upload).")
        var readinessToWellness = false

        @Option(help: "Strava: the API application's client id.")
        var clientId: String?

        @Option(help: "Strava: the API application's client secret (read from standard input when left out).")
        var clientSecret: String?

        @Option(parsing: .unconditional, help: "Strava: the loopback port Strava redirects to (0: any free port).")
        var port: Int = 0

        @Option(parsing: .unconditional, help: "Strava: how long to wait for the authorization, in seconds.")
        var wait: Int = 300

        @Flag(help: "Strava: only print the address to open; do not start a browser.")
        var noBrowser = false

        @OptionGroup var options: ServiceOptions

        func validate() throws {
            switch service {
            case .intervalsICU:
                guard athlete?.isEmpty == false else { throw ValidationError("intervals.icu needs --athlete ID") }
                if clientId != nil || clientSecret != nil || port != 0 || wait != 300 || noBrowser {
                    throw ValidationError("--client-id, --client-secret, --port, --wait and --no-browser are for strava")
                }
            case .strava:
                guard clientId?.isEmpty == false, clientSecret?.isEmpty != true else {
                    throw ValidationError("strava needs --client-id (from https://www.strava.com/settings/api)")
                }
                if athlete != nil || apiKey != nil || readinessToWellness {
                    throw ValidationError("--athlete, --api-key and --readiness-to-wellness are for intervals.icu")
                }
                guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535 (0: any free port)") }
                guard wait > 0 else { throw ValidationError("--wait must be positive") }
            }
        }

        func run() async throws {
            try await reportingFailures {
                switch service {
                case .intervalsICU:
                    try await addIntervalsICU(try options.context())
                case .strava:
                    // Handed over to intervalpro-web (when this binary has no web stack) before anything else.
                    let webStack = try WebStackHandOff.stack()
                    try await addStrava(try options.context(), through: webStack)
                }
            }
        }

        private func addIntervalsICU(_ context: ServiceContext) async throws {
            guard let key = apiKey ?? Terminal.readSecret(prompt: "intervals.icu API key: "), !key.isEmpty else {
                throw LaunchError("no API key given (--api-key, or on standard input)", kind: .usage)
            }
            let account = try await IntervalsICUSignIn.add(
                athlete: athlete ?? "", apiKey: key, readinessToWellness: readinessToWellness, context: context)
            print("intervals.icu: added \(account.name.map { "\($0.printable) (\(account.athleteID))" } ?? account.athleteID)")
        }

        private func addStrava(_ context: ServiceContext, through webStack: any WebStack) async throws {
            // Asked for here, after the hand-off to intervalpro-web, which is started with these
            // arguments: on the command line, any local user's `ps` showed it.
            guard let secret = clientSecret ?? Terminal.readSecret(prompt: "Strava client secret: "), !secret.isEmpty else {
                throw LaunchError("no client secret given (--client-secret, or on standard input)", kind: .usage)
            }
            let account = try await webStack.addStrava(
                clientID: clientId ?? "", clientSecret: secret, port: port, wait: wait, openBrowser: !noBrowser,
                context: context
            ) { url in
                Terminal.writeStandardError("intervalpro: to let IntervalPro read your profile and upload runs, open:\n  \(url)\n")
            }
            print("strava: added \(account.athleteName?.printable ?? "the athlete")")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the accounts (never their keys); `doctor` checks that they work.")

        @Flag(help: "Print the list as JSON.")
        var json = false

        @OptionGroup var options: ServiceOptions

        func run() throws {
            try reportingFailures {
                let context = try options.context()
                let report = AccountsReport(context.accounts, now: context.now())
                print(json ? report.json.serialized(pretty: true) : report.lines.joined(separator: "\n"))
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Forget an account: its key or tokens are deleted from accounts.json.",
            discussion: "For Strava, also revoke IntervalPro at https://www.strava.com/settings/apps."
        )

        @Argument(help: "intervals.icu or strava.")
        var service: Service

        @OptionGroup var options: ServiceOptions

        func run() throws {
            try reportingFailures {
                let context = try options.context()
                guard context.accounts.services.contains(service) else {
                    throw LaunchError("no \(service.rawValue) account to remove", kind: .missingInput)
                }
                do throws(FileError) {
                    try context.update { $0.remove(service) }
                } catch {
                    throw LaunchError(error)
                }
                print("\(service.rawValue): removed")
            }
        }
    }
}
