internal import Basics
internal import BoardCore
internal import BoardHub

/// One HTTP request on a connection and its answer: a phase machine. Every change of `phase`
/// goes through `handle`, which says what the HTTP part must do; the lws calls are the part's.
///
/// A connection carries one exchange at a time, and every request gets a new id (kept in the
/// wsi's opaque user data, see `WSIID`), so an answer that comes back after its exchange has
/// ended finds nothing and is dropped.
final class HTTPExchange {
    /// Where the exchange is.
    enum Phase: Equatable {
        /// Headers in; the body (`Content-Length` bytes) is arriving.
        case receiving
        /// Handed to the hub or the file server; the answer is not here yet. `paused`: lws is
        /// told not to read this connection meanwhile (rx flow control).
        case waiting(paused: Bool)
        /// The answer is here; HTTP_WRITEABLE writes it (in one write when it fits in one).
        case answered(HTTPResponse)
        /// The headers went to lws; each HTTP_WRITEABLE writes the next piece of `body`.
        /// `keepAlive`: the connection stays open for another request once the answer is out.
        case sending(keepAlive: Bool)
        /// The answer went to lws (which may still be sending part of it).
        case written(keepAlive: Bool)
        /// An event stream (HTTP+Streams.swift): its headers are to be written.
        case streamOpening
        /// An event stream whose headers went to lws: each HTTP_WRITEABLE writes the next piece
        /// of `queue`, until the hub ends it (`ending`) or its client goes.
        case streaming
    }

    /// What happens to an exchange.
    enum Event: Equatable {
        /// lws says the body is complete (again, while bytes after it wait unread).
        case bodyComplete
        /// The answer will come later: lws must not read the connection until it does.
        case pause
        /// The answer came.
        case answer(HTTPResponse)
        /// The headers went to lws, with the whole body (`whole`) or without it.
        case headWritten(keepAlive: Bool, whole: Bool)
        /// The last piece of the body went to lws.
        case bodyWritten
        /// The hub opened an event stream on the exchange.
        case openStream
    }

    /// What the HTTP part does about an event.
    enum Action: Equatable {
        /// Nothing (an answer for an exchange that has one already is dropped).
        case none
        /// Hand the request on (to the operations endpoints, the hub or the files).
        case dispatch
        /// Stop reading the connection (`lws_rx_flow_control` 0).
        case pauseReading
        /// Ask for HTTP_WRITEABLE, after reading again (`lws_rx_flow_control` 1) when `resume`.
        case write(resume: Bool)
        /// The client sent more while part of the answer is still to be sent: drop the connection.
        case drop
    }

    let id: ExchangeID
    let wsi: OpaquePointer
    var request: HTTPRequest
    private(set) var phase: Phase
    /// The body's length, from `Content-Length`.
    let bodyLength: Int
    /// While `sending`: the body, and how much of it went to lws.
    var body: [UInt8] = []
    var sent = 0
    /// The request was handed to the hub as an event stream's: the hub hears when it ends.
    var isStreamRequest = false
    /// While streaming: the events not yet given to lws, the bytes in them, how much of the first
    /// one went already, and whether the stream closes once they are out.
    var queue = FIFO<[UInt8]>()
    var queuedBytes = 0
    var queueOffset = 0
    var ending = false
    /// While streaming: when its reader last took something, or when something was queued for it
    /// after nothing was (Clock.now, ms): a stream that has had bytes waiting since longer than
    /// `--stream-stall-seconds` is dropped.
    var progressed: Int64 = 0
    /// Close the connection after the answer: the request's framing cannot be trusted, or lws
    /// would not know where the next request starts.
    let closeAfter: Bool
    /// When the whole exchange must be over, the answer sent.
    let deadline: Instant
    /// The bytes of every exchange's answers held for their clients (`--max-http-answer-bytes`).
    private let tally: AnswerTally
    /// This exchange's part of `tally`: its answer, until lws has all of it (or the exchange ends).
    private var held = 0

    init(
        id: ExchangeID, wsi: OpaquePointer, request: HTTPRequest, bodyLength: Int, deadline: Instant,
        tally: AnswerTally, closeAfter: Bool = false
    ) {
        self.id = id
        self.wsi = wsi
        self.request = request
        self.bodyLength = bodyLength
        self.deadline = deadline
        self.tally = tally
        self.closeAfter = closeAfter
        phase = bodyLength > 0 ? .receiving : .waiting(paused: false)
    }

    deinit { tally.bytes -= held }

    /// Every transition of `phase`, and what the HTTP part must do about it.
    func handle(_ event: Event) -> Action {
        switch (phase, event) {
        case (.receiving, .bodyComplete):
            phase = .waiting(paused: false)
            return .dispatch
        case (.sending, .bodyComplete), (.written, .bodyComplete):
            return .drop
        case (_, .bodyComplete):
            return .none
        case (.waiting(paused: false), .pause):
            phase = .waiting(paused: true)
            return .pauseReading
        case (_, .pause):
            return .none
        case (.waiting(let paused), .answer(let response)):
            phase = .answered(response)
            return .write(resume: paused)
        case (_, .answer):
            return .none
        case (.streamOpening, .headWritten):
            phase = .streaming
            return .none
        case (.answered, .headWritten(let keepAlive, let whole)):
            phase = whole ? .written(keepAlive: keepAlive) : .sending(keepAlive: keepAlive)
            if whole { letGo() }
            return .none
        case (_, .headWritten):
            return .none
        case (.sending(let keepAlive), .bodyWritten):
            body = []
            phase = .written(keepAlive: keepAlive)
            letGo()
            return .none
        case (_, .bodyWritten):
            return .none
        case (.waiting(let paused), .openStream):
            phase = .streamOpening
            return .write(resume: paused)
        case (_, .openStream):
            return .none
        }
    }

    /// Handed on, its answer not here yet.
    var isWaiting: Bool {
        switch phase {
        case .waiting: true
        default: false
        }
    }

    /// Writing its body in pieces.
    var isSending: Bool {
        if case .sending = phase { true } else { false }
    }

    /// An open event stream.
    var isStreaming: Bool {
        switch phase {
        case .streamOpening, .streaming: true
        default: false
        }
    }

    /// The whole answer went to lws.
    var isWritten: Bool {
        if case .written = phase { true } else { false }
    }

    /// Whether the connection stays open for another request once the answer is out.
    var keepAlive: Bool {
        switch phase {
        case .sending(let keepAlive), .written(let keepAlive): keepAlive
        default: false
        }
    }

    /// Counts `bytes` of answer as held for this exchange's client.
    func hold(_ bytes: Int) {
        held += bytes
        tally.bytes += bytes
    }

    /// `bytes` of what was held for this exchange's client went to lws.
    func release(_ bytes: Int) {
        let released = min(bytes, held)
        held -= released
        tally.bytes -= released
    }

    /// lws has all of the answer: none of it is held here any more.
    private func letGo() {
        tally.bytes -= held
        held = 0
    }
}

/// The bytes of HTTP answers held for clients, over every exchange: each adds its answer when it
/// comes and takes it off once lws has all of it, or when the exchange ends (its `deinit`).
/// Confined to the service thread, as the exchanges are.
final class AnswerTally {
    var bytes = 0
}
