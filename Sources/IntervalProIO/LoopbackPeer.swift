/// Who is at the other end of a loopback TCP connection. A server that answers only its own
/// machine trusted every account on it: another user's `curl 127.0.0.1:8418` read the runner's
/// history and heart rate, uploaded with the runner's keys and deleted sessions. The kernel
/// lists each socket with its owner in /proc/net/tcp and tcp6: the peer's socket is the one
/// whose local port is the peer's and whose remote port is the server's.
public enum LoopbackPeer {
    /// The user id that owns the socket at `peerPort`, connected to `serverPort`; nil when it
    /// is not found (the peer already gone).
    public static func owner(peerPort: Int, serverPort: Int) -> UInt32? {
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let bytes = try? FileIO.readAll(table) else { continue }
            if let owner = owner(in: String(decoding: bytes, as: UTF8.self), peerPort: peerPort, serverPort: serverPort) {
                return owner
            }
        }
        return nil
    }

    /// The owner in a table of /proc/net/tcp's format: "sl local_address rem_address st
    /// tx_queue:rx_queue tr:tm->when retrnsmt uid ...", addresses as HEX:PORT in hex.
    static func owner(in table: String, peerPort: Int, serverPort: Int) -> UInt32? {
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 7, port(fields[1]) == peerPort, port(fields[2]) == serverPort else { continue }
            return UInt32(fields[7])
        }
        return nil
    }

    private static func port(_ address: Substring) -> Int? {
        address.split(separator: ":").last.flatMap { Int($0, radix: 16) }
    }
}
