import IntervalProCore
import IntervalProHistory
import IntervalProIO
import IntervalProStorage

extension WebServer {
    /// `GET /api/sessions`' document: a page of the saved sessions, newest first, each with its
    /// uploads, and how many there are in all.
    static func history(_ listings: [SessionListing], uploads: [Int64: [UploadRecord]] = [:], total: Int? = nil) -> String {
        let list: [JSONValue] = listings.map { listing in
            .object([
                ("id", .int(Int(listing.id))), ("startedAt", .string(listing.startedAt)),
                ("localStartedAt", .string(WallClock.localDateTime(of: listing.startedAt) ?? listing.startedAt)),
                ("plan", .string(listing.planName)), ("source", .string(listing.source.rawValue)),
                ("simulated", .bool(listing.isSimulated)),
                ("duration", .nullable(listing.duration?.rounded(toPlaces: 1))),
                ("inZonePercent", .nullable(listing.inZonePercent?.rounded(toPlaces: 1))),
                // As kept: the page rounds it to whole steps as `history` does (170.472 read 170.5
                // here, and the page's 171 was not history's 170).
                ("averageWorkCadence", .nullable(listing.averageWorkCadence)),
                ("status", .string(listing.status.rawValue)), ("statusText", .string(listing.statusText)),
                ("report", .string("/sessions/\(listing.id)/report")),
                (
                    "uploads",
                    .array(
                        (uploads[listing.id] ?? []).map { record in
                            .object([
                                ("service", .string(record.service)), ("status", .string(record.status.rawValue)),
                                ("url", record.activityURL.map(JSONValue.string) ?? .null),
                            ])
                        })
                ),
            ])
        }
        return JSONValue.object([("sessions", .array(list)), ("total", .int(total ?? listings.count))]).serialized(pretty: false)
    }
}
