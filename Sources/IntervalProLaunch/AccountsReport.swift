public import IntervalProCore
public import IntervalProServices

/// The accounts as `account list` shows them: who each is and how it signs in, never a secret.
public struct AccountsReport: Sendable {
    public var rows: [(service: Service, who: String, detail: String)]

    public init(_ accounts: Accounts, now: Double) {
        rows = accounts.listing(now: now)
    }

    public var json: JSONValue {
        .object([
            (
                "accounts",
                .array(
                    rows.map { row in
                        .object([("service", .string(row.service.rawValue)), ("who", .string(row.who)), ("detail", .string(row.detail))])
                    })
            )
        ])
    }

    public var lines: [String] {
        guard !rows.isEmpty else {
            return [
                "No accounts. Add one with `intervalpro account add intervals.icu --athlete ID` or `intervalpro account add strava ...`."
            ]
        }
        return TextTable.render(header: ["SERVICE", "ACCOUNT", "HOW"], rows: rows.map { [$0.service.rawValue, $0.who, $0.detail] })
    }
}
