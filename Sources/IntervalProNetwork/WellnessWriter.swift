import IntervalProCore
import IntervalProHRV
import IntervalProIO
public import IntervalProServices
public import IntervalProStorage

/// Writes readiness measurements into intervals.icu's wellness (rMSSD as `hrv`, the mean heart
/// rate as `restingHR`) and reads a day's wellness back. Each write is queued in the store
/// before it is sent, as session uploads are, so one that fails stays for `upload --pending`.
/// The wellness holds one value a day, and it is the day's as readiness judges it: its last
/// measurement, whichever of the day's is being sent.
public struct WellnessWriter: Sendable {
    public let store: SessionStore
    public let context: ServiceContext

    public init(store: SessionStore, context: ServiceContext) {
        self.store = store
        self.context = context
    }

    /// What became of one measurement's write.
    public struct Result: Sendable {
        public var record: ReadinessUploadRecord
        public var localDate: String
        /// Nil when it was written.
        public var failure: ServiceError?
        /// Queued while there is no intervals.icu account: kept, not tried, until one is added.
        public var waitingForAccount = false
    }

    /// No wellness day is earlier: a date before it is a clock's that was not set.
    static let earliestDay = "1990-01-01"

    /// Queues the measurement, then writes it.
    public func send(readiness id: Int64) async throws(StoreError) -> Result {
        let service = Service.intervalsICU.rawValue
        var record =
            try store.readinessUpload(readiness: id, service: service)
            ?? ReadinessUploadRecord(readinessID: id, service: service, status: .pending, updatedAt: "")
        record.status = .pending
        record.attempts += 1
        record.updatedAt = WallClock.iso8601Now()
        try store.saveReadinessUpload(record)
        guard let measurement = try store.readiness(id: id) else {
            record.status = .rejected
            record.lastError = "no readiness measurement \(id) in \(store.path)"
            try store.saveReadinessUpload(record)
            return Result(
                record: record, localDate: "", failure: ServiceError(.intervalsICU, .notFound, record.lastError ?? ""))
        }
        // A write queued for an earlier measurement of a day since measured again (or one
        // replayed after a later one) sends the day's value, as the baseline reads it.
        let sameDay = try store.readinessRecords(since: measurement.localDate).filter { $0.localDate == measurement.localDate }
        let dayValue = ReadinessRecord.dayValue(of: sameDay) ?? measurement
        let failure: ServiceError?
        do throws(ServiceError) {
            // A morning measured on a Pi before the network set its clock: a wellness of 1970.
            guard measurement.localDate >= Self.earliestDay else {
                throw ServiceError(
                    .intervalsICU, .rejected,
                    "readiness measurement \(id) is dated \(measurement.localDate), before the system clock was set: not written to the wellness")
            }
            // The simulator's strap (a replay of its recording): no runner's morning, as its
            // sessions are no runner's run (`Uploader`).
            if measurement.replaysTheSimulator {
                throw ServiceError(
                    .intervalsICU, .rejected,
                    "readiness measurement \(id) replays the simulator's strap (\(RecordedDevice.simulatorAddressPrefix)…), no runner's morning: not written to the wellness")
            }
            let api = try context.intervalsICU()
            let hrv = dayValue.figures.hrv
            _ = try await context.caller(.intervalsICU).success(
                api.updateWellness(
                    on: measurement.localDate, rmssd: hrv.rmssd, restingHeartRate: Int(hrv.meanHeartRate.rounded())),
                doing: "writing the readiness of \(measurement.localDate) to the wellness")
            failure = nil
        } catch {
            failure = error
        }
        record.status = failure == nil ? .done : failure?.kind == .rejected ? .rejected : .pending
        record.lastError = failure?.message
        record.updatedAt = WallClock.iso8601Now()
        try store.saveReadinessUpload(record)
        return Result(record: record, localDate: measurement.localDate, failure: failure)
    }

    /// Every queued measurement, oldest first.
    public func sendPending() async throws(StoreError) -> [Result] {
        var results: [Result] = []
        for record in try store.pendingReadinessUploads() {
            guard context.accounts.intervalsICU != nil else {
                let day = try store.readiness(id: record.readinessID)?.localDate ?? ""
                results.append(Result(record: record, localDate: day, failure: nil, waitingForAccount: true))
                continue
            }
            results.append(try await send(readiness: record.readinessID))
        }
        return results
    }

    /// A day's wellness as intervals.icu has it.
    public static func read(on date: String, context: ServiceContext) async throws(ServiceError) -> Wellness {
        let api = try context.intervalsICU()
        let response = try await context.caller(.intervalsICU).success(
            api.wellness(on: date), doing: "reading the wellness of \(date)")
        return try IntervalsICU.wellness(response)
    }
}
