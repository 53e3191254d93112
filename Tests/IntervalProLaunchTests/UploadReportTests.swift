import IntervalProCore
import IntervalProLaunch
import IntervalProNetwork
import IntervalProServices
import IntervalProStorage
import Testing

/// The one home of what an upload came to: the word the command line and the page share, the
/// line `upload` prints, and the failure its exit status tells.
@Suite struct UploadReportTests {
    func result(_ kind: Uploader.Result.Kind, status: UploadRecord.Status, service: String = "strava") -> Uploader.Result {
        Uploader.Result(
            record: UploadRecord(
                sessionID: 7, service: service, status: status, activityID: "123", activityURL: "https://example.org/a/123",
                updatedAt: "2026-11-26T06:00:00Z"),
            kind: kind)
    }

    @Test func eachResultHasItsWord() {
        let words = [
            result(.uploaded, status: .done), result(.alreadyThere, status: .done), result(.refusedDuplicate, status: .done),
            result(.stillProcessing, status: .processing),
            result(.failed(ServiceError(.strava, .rejected, "not a FIT file")), status: .rejected),
            result(.failed(ServiceError(.strava, .unavailable, "timed out")), status: .pending),
        ].map(\.outcome)
        #expect(words == ["uploaded", "already-there", "refused-duplicate", "processing", "rejected", "queued"])
    }

    @Test func credentialsOutrankARefusedFileWhichOutranksTryLater() {
        let later = result(.failed(ServiceError(.strava, .unavailable, "timed out")), status: .pending)
        let refusedFile = result(.failed(ServiceError(.strava, .rejected, "not a FIT file")), status: .rejected)
        let credentials = result(.failed(ServiceError(.intervalsICU, .credentials, "key refused")), status: .pending)
        #expect(UploadReport([later]).worst == .unavailable)
        #expect(UploadReport([later, refusedFile]).worst == .invalidData)
        #expect(UploadReport([credentials, later, refusedFile]).worst == .refused)
        #expect(UploadReport([later, credentials]).worst == .refused)
        // A duplicate refused without --force is a refused file; still processing is "later".
        #expect(UploadReport([result(.stillProcessing, status: .processing), result(.refusedDuplicate, status: .done)]).worst == .invalidData)
        #expect(UploadReport([result(.uploaded, status: .done)]).worst == nil)
    }

    @Test func linesSayWhatToDoNext() {
        let report = UploadReport([
            result(.uploaded, status: .done),
            result(.refusedDuplicate, status: .done),
            result(.failed(ServiceError(.strava, .unavailable, "timed out")), status: .pending),
            result(.failed(ServiceError(.strava, .rejected, "not a FIT file")), status: .rejected),
        ])
        #expect(
            report.lines == [
                .done("session 7 → strava: https://example.org/a/123"),
                .notice("session 7 → strava: already uploaded (https://example.org/a/123); --force uploads it again"),
                .error("session 7 → strava: timed out (queued: `intervalpro upload --pending` retries)"),
                .error("session 7 → strava: not a FIT file"),
            ])
    }

    /// The wellness list was there only when a readiness write was: `jq '.wellness[]'` in a
    /// cron job failed on every other run.
    @Test func jsonListsEveryUploadAndTheWellnessWritesEvenWhenNone() throws {
        let report = UploadReport([result(.uploaded, status: .done), result(.stillProcessing, status: .processing)])
        guard case .object(let members) = report.json, case .array(let uploads)? = members.first(where: { $0.0 == "uploads" })?.1
        else {
            Issue.record("no uploads array in \(report.json.serialized())")
            return
        }
        #expect(members.map(\.0) == ["uploads", "wellness"])
        #expect(report.json.serialized().hasSuffix(#""wellness":[]}"#), "\(report.json.serialized())")
        #expect(uploads.count == 2)
        #expect(report.json.serialized().contains(#""outcome":"processing""#))
    }

    @Test func everyServiceCanBeNamedAsADestination() {
        // A service added later gets its own name for `--to` and the page, spelled as the service is.
        #expect(UploadDestination.allCases.compactMap(\.service) == Service.allCases)
        #expect(UploadDestination.allCases.filter { $0 != .all }.map(\.rawValue) == Service.allCases.map(\.rawValue))
        // With no account, "all" names nothing: an error, not an upload to no one.
        #expect(throws: LaunchError.self) { try Uploader.destinations(.all, accounts: Accounts()) }
    }
}
