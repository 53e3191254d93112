#if canImport(Glibc)
import Glibc
#endif
import HummingbirdCore
import IntervalProIO
import Logging
import NIOCore

/// On a server that answers its own machine without a token (loopback), a connection from
/// another user's process is answered 403 and closed before anything of it is read: every
/// account on the machine could read the runner's history, upload with the runner's keys,
/// delete sessions and steer the one running (web-api.md, "Access").
struct OwnUserOnlyChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    let inner: Inner

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        guard let peer = channel.remoteAddress?.port, let server = channel.localAddress?.port,
            let owner = LoopbackPeer.owner(peerPort: peer, serverPort: server), owner != getuid()
        else { return inner.setup(channel: channel, logger: logger) }
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(OtherUserRefusal())
        }.flatMap { inner.setup(channel: channel, logger: logger) }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

/// First in the pipeline of another user's connection: answers 403 and closes, and passes on
/// nothing the peer sends.
private final class OtherUserRefusal: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private var answered = false

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { refuse(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        refuse(context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    private func refuse(_ context: ChannelHandlerContext) {
        guard !answered else { return }
        answered = true
        let body = #"{"error": "this page is another user's: it answers only the user it runs as"}"# + "\n"
        let answer = "HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Connection: close\r\n\r\n" + body
        context.writeAndFlush(NIOAny(ByteBuffer(string: answer))).whenComplete { _ in context.close(promise: nil) }
    }
}
