#if canImport(Glibc)
import Glibc
#endif
import Testing

@testable import IntervalProIO

/// Whose socket is at the other end of a loopback connection, from the kernel's table.
@Suite struct LoopbackPeerTests {
    // The server listens on 127.0.0.1:8418 (0x20E2); user 65534's socket at port 41234
    // (0xA112) is connected to it, and the server's side of that connection is root's.
    static let table = """
          sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
           0: 0100007F:20E2 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2001 1 0 100 0 0 10 0
           1: 0100007F:A112 0100007F:20E2 01 00000000:00000000 00:00000000 00000000 65534        0 2002 1 0 20 4 30 10 -1
           2: 0100007F:20E2 0100007F:A112 01 00000000:00000000 00:00000000 00000000     0        0 2003 1 0 20 4 30 10 -1
        """

    @Test func thePeersSocketSaysWhoseItIs() {
        #expect(LoopbackPeer.owner(in: Self.table, peerPort: 0xA112, serverPort: 0x20E2) == 65534)
        #expect(LoopbackPeer.owner(in: Self.table, peerPort: 0x20E2, serverPort: 0xA112) == 0)
        #expect(LoopbackPeer.owner(in: Self.table, peerPort: 1, serverPort: 0x20E2) == nil)
    }

    @Test func aRealConnectionIsThisUsers() throws {
        // A listening socket and a connection to it, on loopback, found in the kernel's table.
        func port(_ socket: Int32) -> Int {
            var address = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } }
            return Int(UInt16(bigEndian: address.sin_port))
        }
        let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0), client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(server); close(client) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(server, $0, size) } }
        try #require(bound == 0 && listen(server, 1) == 0)
        address.sin_port = UInt16(port(server)).bigEndian
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, size) } }
        try #require(connected == 0)
        #expect(LoopbackPeer.owner(peerPort: port(client), serverPort: port(server)) == getuid())
    }
}
