import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Closes a connection whose request head has not come whole within `deadline`: a device on
/// the network that opened connections and sent part of a head held each of them for ever, and
/// a thousand of them locked the phone out of a Pi (the token is checked only once a head is
/// in). First in the pipeline, it watches the raw bytes for the blank line that ends a head,
/// then steps aside; a keep-alive connection between requests is the HTTP channel's idle
/// timeout's, a WebSocket's is its own.
final class RequestHeadDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let deadline: TimeAmount
    private var timer: Scheduled<Void>?
    /// The last bytes seen, so that a "\r\n\r\n" split across reads is found.
    private var tail: [UInt8] = []

    init(deadline: TimeAmount) {
        self.deadline = deadline
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: deadline) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        let headEnded = endsHead(buffer.readableBytesView)
        context.fireChannelRead(data)
        if headEnded {
            timer?.cancel()
            timer = nil
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }

    /// Whether these bytes, after those before them, hold the blank line that ends a head.
    private func endsHead(_ bytes: ByteBufferView) -> Bool {
        let ending: [UInt8] = [13, 10, 13, 10]
        var window = tail
        for byte in bytes {
            window.append(byte)
            if window.count > 4 { window.removeFirst(window.count - 4) }
            if window == ending { return true }
        }
        tail = window
        return false
    }
}

/// Closes the connection of a request that is not HTTP. The WebSocket upgrade's pipeline
/// waits for a request head that parses, and one that did not (`GARBAGE` and a blank line)
/// held its connection for ever, past the head's deadline: 300 of them from a device on the
/// network held 300 descriptors. (No 400 is written: what is written here goes through the
/// encoders of whichever stage the pipeline is at, each with a type of its own.)
final class UnparsableRequestCloser: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError else { return context.fireErrorCaught(error) }
        context.close(promise: nil)
    }

    /// A request got through: the connection is HTTP's (or the WebSocket's) to run from here.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}

/// The HTTP/1 and WebSocket channel with a deadline for each connection's first request head.
struct HeadDeadlineChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    let inner: Inner
    let deadline: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(RequestHeadDeadline(deadline: deadline))
        }.flatMap { inner.setup(channel: channel, logger: logger) }.flatMapThrowing { value in
            // Last, where the HTTP decoder's errors arrive.
            try channel.pipeline.syncOperations.addHandler(UnparsableRequestCloser())
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}
