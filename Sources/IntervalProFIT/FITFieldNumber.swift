/// The field definition numbers (the FIT profile's per-message field numbers) of the fields
/// IntervalPro reads or writes, by message, named as the profile names them: one home for
/// them, beside the message numbers (`FITMessageNumber`).
public enum FITFieldNumber {
    /// In every message that has them.
    public static let timestamp: UInt8 = 253
    public static let messageIndex: UInt8 = 254

    public enum FileID {
        public static let type: UInt8 = 0
        public static let manufacturer: UInt8 = 1
        public static let product: UInt8 = 2
        public static let serialNumber: UInt8 = 3
        public static let timeCreated: UInt8 = 4
        public static let productName: UInt8 = 8
    }

    public enum FileCreator {
        public static let softwareVersion: UInt8 = 0
    }

    public enum DeveloperDataID {
        public static let applicationID: UInt8 = 1
        public static let developerDataIndex: UInt8 = 3
        public static let applicationVersion: UInt8 = 4
    }

    public enum FieldDescription {
        public static let developerDataIndex: UInt8 = 0
        public static let fieldDefinitionNumber: UInt8 = 1
        public static let fitBaseTypeID: UInt8 = 2
        public static let fieldName: UInt8 = 3
        public static let units: UInt8 = 8
    }

    public enum DeviceInfo {
        public static let deviceIndex: UInt8 = 0
        public static let manufacturer: UInt8 = 2
        public static let product: UInt8 = 4
        public static let descriptor: UInt8 = 19
        public static let productName: UInt8 = 27
    }

    public enum Sport {
        public static let sport: UInt8 = 0
    }

    public enum Record {
        public static let heartRate: UInt8 = 3
        /// Strides (one foot) per minute for running.
        public static let cadence: UInt8 = 4
        /// 1/100 m.
        public static let distance: UInt8 = 5
        /// 1/1000 m/s.
        public static let speed: UInt8 = 6
        /// Three bytes: 12 bits of speed (1/100 m/s), then 12 bits of distance (1/16 m) that
        /// count on from the record before, wrapping at 4096 (older Garmin watches).
        public static let compressedSpeedDistance: UInt8 = 8
        /// 1/128 of a stride per minute.
        public static let fractionalCadence: UInt8 = 53
        /// 1/1000 m/s.
        public static let enhancedSpeed: UInt8 = 73
    }

    public enum HRV {
        public static let time: UInt8 = 0
    }

    public enum Event {
        public static let event: UInt8 = 0
        public static let eventType: UInt8 = 1
        public static let eventGroup: UInt8 = 4
        /// The `event` value of the timer's starts and stops.
        public static let timer: Int64 = 0
        /// The `event_type` values that stop the timer: stop, stop_all, stop_disable,
        /// stop_disable_all.
        public static let timerStops: Set<Int64> = [1, 4, 8, 9]
        /// The `event_type` value that starts the timer again.
        public static let timerStart: Int64 = 0
    }

    public enum Lap {
        public static let event: UInt8 = 0
        public static let eventType: UInt8 = 1
        public static let startTime: UInt8 = 2
        public static let totalElapsedTime: UInt8 = 7
        public static let totalTimerTime: UInt8 = 8
        public static let totalDistance: UInt8 = 9
        /// Total strides, for running.
        public static let totalCycles: UInt8 = 10
        public static let avgHeartRate: UInt8 = 15
        public static let maxHeartRate: UInt8 = 16
        public static let avgCadence: UInt8 = 17
        public static let maxCadence: UInt8 = 18
        public static let intensity: UInt8 = 23
        public static let lapTrigger: UInt8 = 24
        public static let sport: UInt8 = 25
        public static let workoutStepIndex: UInt8 = 71
        public static let avgFractionalCadence: UInt8 = 80
        public static let maxFractionalCadence: UInt8 = 81
    }

    public enum Session {
        public static let event: UInt8 = 0
        public static let eventType: UInt8 = 1
        public static let startTime: UInt8 = 2
        public static let sport: UInt8 = 5
        public static let subSport: UInt8 = 6
        public static let totalElapsedTime: UInt8 = 7
        public static let totalTimerTime: UInt8 = 8
        public static let totalDistance: UInt8 = 9
        /// Total strides, for running.
        public static let totalCycles: UInt8 = 10
        public static let avgHeartRate: UInt8 = 16
        public static let maxHeartRate: UInt8 = 17
        public static let avgCadence: UInt8 = 18
        public static let maxCadence: UInt8 = 19
        public static let firstLapIndex: UInt8 = 25
        public static let numLaps: UInt8 = 26
        public static let trigger: UInt8 = 28
        public static let avgFractionalCadence: UInt8 = 92
        public static let maxFractionalCadence: UInt8 = 93
    }

    public enum Activity {
        public static let totalTimerTime: UInt8 = 0
        public static let numSessions: UInt8 = 1
        public static let type: UInt8 = 2
        public static let event: UInt8 = 3
        public static let eventType: UInt8 = 4
        /// The runner's clock at `timestamp` (local_date_time): what a service files the run's
        /// local time by.
        public static let localTimestamp: UInt8 = 5
    }

    public enum Workout {
        public static let sport: UInt8 = 4
        public static let numValidSteps: UInt8 = 6
        public static let workoutName: UInt8 = 8
    }

    public enum WorkoutStep {
        public static let name: UInt8 = 0
        public static let durationType: UInt8 = 1
        public static let durationValue: UInt8 = 2
        public static let targetType: UInt8 = 3
        public static let targetValue: UInt8 = 4
        public static let customTargetValueLow: UInt8 = 5
        public static let customTargetValueHigh: UInt8 = 6
        public static let intensity: UInt8 = 7
        /// A second target beside the first (Garmin Connect's run steps: pace, then cadence).
        public static let secondaryTargetType: UInt8 = 19
        public static let secondaryTargetValue: UInt8 = 20
        public static let secondaryCustomTargetValueLow: UInt8 = 21
        public static let secondaryCustomTargetValueHigh: UInt8 = 22
    }
}
