public import IntervalProCore
public import IntervalProDBus

// The state machine's vocabulary: what comes in, what goes out, what it tells the user.
extension SensorLinkMachine {
    /// How measurements are subscribed (`--notify`).
    public enum NotifyMethod: String, Sendable, CaseIterable {
        /// AcquireNotify where the characteristic offers it (`NotifyAcquired`), StartNotify
        /// where it does not or where AcquireNotify is refused.
        case auto
        /// AcquireNotify only.
        case acquire
        /// StartNotify only: values as PropertiesChanged signals.
        case start
    }

    /// The path a characteristic's values take.
    public enum NotifyPath: String, Sendable {
        case acquired = "AcquireNotify"
        case signals = "StartNotify"
    }

    public enum Event: Sendable {
        case start
        /// org.bluez got an owner (bluetoothd started) or lost it (stopped).
        case bluezPresent(Bool)
        case tree(BlueZObjectTree.Change)
        case reply(CallID, Result<[DBusValue], DBusCallError>)
        /// Time passed (timers: settle, retries, resolve timeouts).
        case tick
        /// Unsubscribe and disconnect, then report `.stopped`.
        case stop
        /// An acquired notification socket hung up or failed; the driver has closed it.
        case socketClosed(characteristic: String)
    }

    public enum Role: String, Sendable, CaseIterable {
        case heartRate = "heart rate"
        case cadence
        var service: UInt16 { self == .heartRate ? BlueZ.heartRateService : BlueZ.runningSpeedAndCadenceService }
        var measurement: UInt16 { self == .heartRate ? 0x2A37 : 0x2A53 }
    }

    /// Why a remembered device's role went to another.
    public enum Replacement: Equatable, Sendable {
        /// It did not appear within the remembered wait.
        case notInRange
        /// It is there, but its services resolved without the role's.
        case offersNoRole
        /// It is in BlueZ's tree (paired) but its connects failed.
        case notAnswering
    }

    /// What the user should know; the driver decides how to show it.
    public enum Status: Equatable, Sendable {
        /// The bus answered that org.bluez has no owner (or could not say): bluetoothd is not
        /// running yet. Not said while the bus has still to answer.
        case waitingForBluez
        case noAdapter(requested: String?)
        case adapterOff(String)
        case adapterBlocked(String)
        /// bluetoothd refused to list its objects to this user (D-Bus policy), with its words.
        case notPermitted(String)
        /// Discovery started, for the roles still open.
        case scanning(roles: Set<Role>)
        case chose(role: Role, device: String, name: String?)
        /// `device` was taken in the remembered one's place, for the reason `why`.
        case choseInstead(role: Role, device: String, name: String?, remembered: String, why: Replacement)
        /// The device's services resolved without the role's service: it keeps its other
        /// roles and another device is looked for.
        case roleNotOffered(role: Role, device: String)
        case connecting(device: String, attempt: Int)
        case connectFailed(device: String, error: String, retryIn: SessionTime)
        case subscribed(device: String)
        /// Which path a measurement's values take; `refused` says why AcquireNotify was not used.
        case notifying(device: String, characteristic: UInt16, path: NotifyPath, refused: String?)
        /// Neither AcquireNotify nor StartNotify was let through: the device will send nothing
        /// of this measurement (it said nothing, and the run was "no signal" to its end).
        case notifyRefused(device: String, characteristic: UInt16, error: String)
        case lost(device: String)
        case bluezRestarted
    }

    public enum Action: Equatable, Sendable {
        case call(CallID, BlueZCall)
        /// A value from a device: a notification, or a value read once after connecting.
        case value(device: String, characteristic: UInt16, bytes: [UInt8])
        /// For the recording: "connected", "disconnected".
        case deviceEvent(device: String, name: String)
        case status(Status)
        /// Read values from this acquired socket (its `mtu` bounds a value) and report them
        /// as the device's; the driver owns the descriptor from now on.
        case listen(characteristic: String, descriptor: Int32, mtu: Int, device: String, uuid: UInt16)
        /// Close the acquired socket of this characteristic (it unsubscribes).
        case release(characteristic: String)
        /// Everything is unsubscribed and disconnected (after `.stop`).
        case stopped
    }

    enum Pending: Equatable {
        case nameHasOwner, managedObjects, filter, startDiscovery, stopDiscovery
        case connect(device: String)
        case disconnect(device: String)
        case startNotify(device: String, characteristic: String)
        case acquireNotify(device: String, characteristic: String)
        case stopNotify(characteristic: String)
        case read(device: String, uuid: UInt16)
    }
}
