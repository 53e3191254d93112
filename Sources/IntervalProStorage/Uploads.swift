import GRDB

/// Where a session's upload to one service stands.
public struct UploadRecord: Sendable, Equatable {
    public enum Status: String, Sendable {
        /// Queued: not sent yet, or the last attempt failed in a way worth retrying.
        case pending
        /// Sent; the service is still turning it into an activity (Strava).
        case processing
        case done
        /// The service refused the file: retrying will not help.
        case rejected
    }

    public var sessionID: Int64
    /// The service's command-line name ("intervals.icu", "strava").
    public var service: String
    public var status: Status
    public var remoteUploadID: String?
    public var activityID: String?
    public var activityURL: String?
    public var attempts: Int
    public var lastError: String?
    /// ISO 8601 UTC.
    public var updatedAt: String

    public init(
        sessionID: Int64, service: String, status: Status, remoteUploadID: String? = nil, activityID: String? = nil,
        activityURL: String? = nil, attempts: Int = 0, lastError: String? = nil, updatedAt: String
    ) {
        self.sessionID = sessionID
        self.service = service
        self.status = status
        self.remoteUploadID = remoteUploadID
        self.activityID = activityID
        self.activityURL = activityURL
        self.attempts = attempts
        self.lastError = lastError
        self.updatedAt = updatedAt
    }
}

struct UploadRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "upload"
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase

    var sessionId: Int64
    var service: String
    var status: String
    var remoteUploadId: String?
    var activityId: String?
    var activityUrl: String?
    var attempts: Int
    var lastError: String?
    var updatedAt: String

    init(_ record: UploadRecord) {
        sessionId = record.sessionID
        service = record.service
        status = record.status.rawValue
        remoteUploadId = record.remoteUploadID
        activityId = record.activityID
        activityUrl = record.activityURL
        attempts = record.attempts
        lastError = record.lastError
        updatedAt = record.updatedAt
    }

    var record: UploadRecord {
        UploadRecord(
            sessionID: sessionId, service: service, status: UploadRecord.Status(rawValue: status) ?? .pending,
            remoteUploadID: remoteUploadId, activityID: activityId, activityURL: activityUrl, attempts: attempts,
            lastError: lastError, updatedAt: updatedAt)
    }
}

extension SessionStore {
    /// Writes (or replaces) a session's upload row for one service.
    public func saveUpload(_ record: UploadRecord) throws(StoreError) {
        try write { db in try UploadRow(record).save(db) }
    }

    public func upload(session id: Int64, service: String) throws(StoreError) -> UploadRecord? {
        try read { db in try UploadRow.fetchOne(db, key: ["session_id": id, "service": service])?.record }
    }

    public func uploads(session id: Int64) throws(StoreError) -> [UploadRecord] {
        try read { db in
            try UploadRow.filter(Column("session_id") == id).order(Column("service")).fetchAll(db).map(\.record)
        }
    }

    /// The queue: uploads not yet done that are worth another attempt, oldest session first.
    public func pendingUploads() throws(StoreError) -> [UploadRecord] {
        try read { db in
            try UploadRow.filter(["pending", "processing"].contains(Column("status")))
                .order(Column("session_id"), Column("service")).fetchAll(db).map(\.record)
        }
    }
}
