import BoardCore
import BoardHub
import Testing

@testable import BoardServer

/// The HTTP exchange's lifecycle, event by event: one phase, transitions in `handle`, what the
/// HTTP part does read from the action, the connection's fate read from the phase.
@Suite struct HTTPExchangeTests {
    let tally = AnswerTally()

    func exchange(bodyLength: Int = 0, closeAfter: Bool = false) -> HTTPExchange {
        // Any non-nil pointer: the phase machine never touches the wsi.
        HTTPExchange(
            id: ExchangeID(1), wsi: OpaquePointer(bitPattern: 0x10)!,
            request: HTTPRequest(method: .get, path: "/api/boards", peer: "127.0.0.1"), bodyLength: bodyLength,
            deadline: Instant(milliseconds: 1000), tally: tally, closeAfter: closeAfter)
    }

    let ok = HTTPResponse(status: 200, contentType: "text/plain", body: Array("ok".utf8))

    @Test func aRequestWithABodyIsHandedOnOnceItsBodyIsCompleteAndOnlyOnce() {
        let x = exchange(bodyLength: 10)
        #expect(x.phase == .receiving)
        #expect(x.handle(.bodyComplete) == .dispatch)
        #expect(x.phase == .waiting(paused: false))
        #expect(x.handle(.bodyComplete) == .none, "a re-delivered BODY_COMPLETION while waiting is ignored")
    }

    @Test func aWaitingExchangeIsPausedOnceAndItsAnswerResumesReading() {
        let x = exchange()
        #expect(x.phase == .waiting(paused: false))
        #expect(x.handle(.pause) == .pauseReading)
        #expect(x.handle(.pause) == .none)
        #expect(x.handle(.answer(ok)) == .write(resume: true))
        #expect(x.phase == .answered(ok))
        #expect(x.handle(.answer(ok)) == .none, "a second answer is dropped")
        #expect(x.handle(.bodyComplete) == .none)
    }

    @Test func anAnswerInOneWriteIsWrittenAndMoreFromTheClientThenDropsIt() {
        let x = exchange()
        #expect(x.handle(.answer(ok)) == .write(resume: false))
        x.hold(2)
        #expect(tally.bytes == 2)
        #expect(x.handle(.headWritten(keepAlive: true, whole: true)) == .none)
        #expect(x.isWritten && x.keepAlive && !x.isSending)
        #expect(tally.bytes == 0, "lws has all of the answer")
        #expect(x.handle(.bodyComplete) == .drop)
    }

    @Test func anAnswerInPiecesIsSendingUntilItsLastPiece() {
        let x = exchange()
        _ = x.handle(.answer(ok))
        x.hold(2)
        #expect(x.handle(.headWritten(keepAlive: false, whole: false)) == .none)
        #expect(x.isSending && !x.keepAlive)
        #expect(tally.bytes == 2, "held while it is being sent")
        #expect(x.handle(.bodyComplete) == .drop, "the client sent more while the answer is going out")
        #expect(x.handle(.bodyWritten) == .none)
        #expect(x.phase == .written(keepAlive: false))
        #expect(tally.bytes == 0)
    }

    @Test func eventsOutOfTurnChangeNothing() {
        let x = exchange(bodyLength: 5)
        #expect(x.handle(.answer(ok)) == .none, "no answer before the request was handed on")
        #expect(x.handle(.pause) == .none)
        #expect(x.handle(.headWritten(keepAlive: true, whole: true)) == .none)
        #expect(x.handle(.bodyWritten) == .none)
        #expect(x.phase == .receiving)
    }

    @Test func whatAnEndedExchangeHeldLeavesTheTally() {
        do {
            let x = exchange()
            _ = x.handle(.answer(ok))
            x.hold(100)
            #expect(tally.bytes == 100)
        }
        #expect(tally.bytes == 0)
    }

    @Test func aStreamsQueuedBytesAreHeldUntilWrittenAndWhatIsLeftGoesWithTheExchange() {
        do {
            let x = exchange()
            #expect(x.handle(.openStream) == .write(resume: false))
            x.hold(3000)  // Two events queued (HTTP+Streams.swift).
            x.hold(500)
            #expect(tally.bytes == 3500)
            x.release(2000)  // One piece went to lws.
            #expect(tally.bytes == 1500)
            x.release(5000)  // Never more than it holds.
            #expect(tally.bytes == 0)
            x.hold(700)
        }
        #expect(tally.bytes == 0, "a dropped stream's queue leaves the tally")
    }
}
