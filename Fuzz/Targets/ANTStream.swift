// libFuzzer target: the bytes an ANT stick sends (ANTDeframer), fed to the stick's state
// machine, every data page read by both ANT+ profiles.
//
// Built by Fuzz/run.sh with Sources/IntervalProCore/*.swift and Sources/IntervalProANT/*.swift
// as one module. A trap or sanitizer report is a failure.
//
// Properties checked:
// - the input read in one piece and cut in two at every tenth byte gives the same messages;
// - each message framed again deframes to itself;
// - the state machine never sends a message it cannot frame, and reports each data page as
//   eight bytes;
// - pages parse or throw their length error only; beat intervals are plausible.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var whole = ANTDeframer()
    let messages = whole.append(bytes)
    for cut in stride(from: 0, through: bytes.count, by: max(1, bytes.count / 10)) {
        var pieces = ANTDeframer()
        let again = pieces.append(bytes[..<cut]) + pieces.append(bytes[cut...])
        fuzzCheck(again == messages, "a cut at \(cut) changed the messages")
    }
    var machine = ANTStickMachine(networkKey: [1, 2, 3, 4, 5, 6, 7, 8], channels: [.heartRate(), .strideSpeed()])
    var now = SessionTime.zero
    var tracker = ANTPlusBeatTracker()
    var actions = machine.handle(.start, now: now)
    for message in messages {
        var one = ANTDeframer()
        fuzzCheck(one.append(message.framed) == [message], "\(message) does not frame back to itself")
        now = now + .seconds(0.25)
        actions += machine.handle(.received(message), now: now)
        actions += machine.handle(.tick, now: now)
    }
    for action in actions {
        switch action {
        case .send(let message): fuzzCheck(message.payload.count <= ANTMessage.largestPayload)
        case .page(_, _, let page):
            fuzzCheck(page.count == 8)
            if let heart = try? ANTPlusHeartRatePage.parse(page) {
                for interval in tracker.add(heart) { fuzzCheck((205...3072).contains(interval)) }
                _ = heart.json.serialized()
            }
            if let pod = try? ANTPlusStrideSpeedPage.parse(page) { _ = pod.json.serialized() }
        case .channelState, .failed: break
        }
    }
    return 0
}
