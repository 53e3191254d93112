import IntervalProCore

extension SensorLinkMachine {
    /// One chosen device and how far its link has come. Its state changes only through the
    /// methods below, each one thing that happened to the link, so that what is connected,
    /// notifying or acquired never disagrees with the phase.
    struct Link: Equatable {
        enum Phase: Equatable {
            /// Waiting for its object to (re)appear, e.g. after a bluetoothd restart.
            case absent
            /// Found, its turn to connect not yet come: another chosen device is connecting.
            case queued
            case connecting
            /// Connected; waiting for ServicesResolved and the characteristic objects, from
            /// `since` on (later than now for a socket to acquire again: see `socketClosed`).
            case resolving(since: SessionTime)
            case subscribed
            case retrying(at: SessionTime)
        }

        /// The device's object path (it changes when bluetoothd exports the device anew).
        private(set) var path: String
        let address: String
        let name: String?
        var roles: Set<Role>
        private(set) var phase: Phase = .absent
        /// Connection attempts that failed in a row: the next retry waits longer.
        private(set) var failures = 0
        /// Characteristic paths we started notifications on, by UUID.
        private(set) var notifying: [String: UInt16] = [:]
        /// Those of them whose values come through an acquired socket.
        private(set) var acquired: Set<String> = []
        /// Why AcquireNotify was refused, by characteristic path (kept for the status line).
        private(set) var refusedAcquire: [String: String] = [:]
        /// Characteristics read once on this connection (location, features, battery).
        private(set) var read: Set<String> = []
        /// BlueZ said the device was removed but the tree may still list it until
        /// InterfacesRemoved arrives: do not connect to that object again.
        private(set) var objectIsStale = false
        /// Connected at least once, never yet subscribed: a device whose first link dropped
        /// while it came up (a busy radio) is present and worth waiting for.
        private(set) var droppedBeforeSubscribing = false
        private(set) var everSubscribed = false

        init(path: String, address: String, name: String?, roles: Set<Role>) {
            self.path = path
            self.address = address
            self.name = name
            self.roles = roles
        }

        /// The link is up: from the moment it connected until it is lost.
        var isConnected: Bool {
            switch phase {
            case .resolving, .subscribed: true
            case .absent, .queued, .connecting, .retrying: false
            }
        }

        /// Whether this object may be connected to (not one BlueZ said it removed).
        func canUse(_ devicePath: String) -> Bool { !(objectIsStale && devicePath == path) }

        /// Found in the tree (again): from now on at `devicePath`.
        mutating func found(at devicePath: String) { path = devicePath }

        mutating func connecting() { phase = .connecting }

        mutating func queued() { phase = .queued }

        /// The link came up, or was found up: services resolve next.
        mutating func connected(at now: SessionTime) { phase = .resolving(since: now) }

        /// Every measurement of its roles is subscribed.
        mutating func subscribed() {
            phase = .subscribed
            failures = 0
            everSubscribed = true
            droppedBeforeSubscribing = false
        }

        /// A measurement is to be subscribed on a link that is up (a role added, a socket
        /// to acquire again): back to resolving, which subscribes what is missing.
        mutating func resubscribe(at now: SessionTime) {
            if phase == .subscribed { phase = .resolving(since: now) }
        }

        /// The link ended: notifications and reads start over on the next connection, tried
        /// at `retryAt`. Returns the acquired sockets to close.
        mutating func lost(retryAt: SessionTime) -> [String] {
            let released = releaseAcquired()
            notifying = [:]
            read = []
            failures = 0
            if !everSubscribed { droppedBeforeSubscribing = true }
            phase = .retrying(at: retryAt)
            return released
        }

        /// bluetoothd went away, and its objects with it: the device is found again when it
        /// is back. Returns the acquired sockets to close.
        mutating func bluezGone() -> [String] {
            let released = releaseAcquired()
            notifying = [:]
            read = []
            phase = .absent
            return released
        }

        /// Its object left the tree.
        mutating func objectRemoved() {
            phase = .absent
            objectIsStale = false
        }

        /// Connecting found the object gone; `lingering`: the tree still lists it.
        mutating func objectGone(lingering: Bool) {
            phase = .absent
            objectIsStale = lingering
        }

        /// Connecting failed: tried again after the delay for this many failures, returned.
        mutating func connectFailed(now: SessionTime, delays: [SessionTime]) -> SessionTime {
            let delay = delays[min(failures, delays.count - 1)]
            failures += 1
            phase = .retrying(at: now + delay)
            return delay
        }

        mutating func notifyStarted(_ characteristic: String, uuid: UInt16) { notifying[characteristic] = uuid }

        mutating func acquired(_ characteristic: String, uuid: UInt16) {
            notifying[characteristic] = uuid
            acquired.insert(characteristic)
        }

        mutating func acquireRefused(_ characteristic: String, reason: String) { refusedAcquire[characteristic] = reason }

        /// Marks a characteristic read on this connection; false if it was already.
        mutating func markRead(_ characteristic: String) -> Bool { read.insert(characteristic).inserted }

        /// Stops every acquired notification (closing the socket is how). Returns their
        /// characteristics, in order.
        mutating func releaseAcquired() -> [String] {
            let paths = acquired.sorted()
            for path in paths { notifying[path] = nil }
            acquired = []
            return paths
        }

        /// How long a socket that hung up waits before it is acquired again: its hang-up comes
        /// before BlueZ says the link dropped, and acquired at once, a device going away was
        /// asked for a socket and said to be "receiving" as its signal was lost.
        static let afterHangUp = SessionTime.seconds(1)

        /// An acquired socket hung up: that characteristic no longer notifies. With the link
        /// still up after `afterHangUp` it is subscribed again.
        mutating func socketClosed(_ characteristic: String, linkUp: Bool, now: SessionTime) {
            acquired.remove(characteristic)
            notifying[characteristic] = nil
            if linkUp { resubscribe(at: now + Self.afterHangUp) }
        }
    }
}
