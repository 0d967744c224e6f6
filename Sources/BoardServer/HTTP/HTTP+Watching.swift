internal import BoardCore
internal import BoardHub
internal import CLibWebSockets
import Foundation
internal import LWSSupport

/// Watching exchanges: bodies and answers that are late, clients that send more while lws still
/// holds part of their answer (see `HTTP` for the lws 4.1.6 behaviours this works around), and
/// the heap after a burst of large answers.
extension HTTP {
    /// Called on every tick: drops exchanges whose body is late, or whose client has not read
    /// its answer in time, and event streams that took nothing for `--stream-stall-seconds`.
    /// Once a burst of large answers is over, gives their memory back.
    func sweepExchanges() {
        let now = Clock.now().milliseconds
        if config.streamStall > .zero { dropStalledStreams(now: now) }
        for exchange in exchanges.values where now > exchange.deadline.milliseconds {
            switch exchange.phase {
            case .receiving:
                drop(exchange, "did not send its request body within \(config.httpTimeout.seconds) s")
            case .sending:
                drop(
                    exchange, over: .sendQueue,
                    "took only \(exchange.sent) of the \(exchange.body.count) bytes of its answer within "
                        + "\(config.httpTimeout.seconds) s")
            case .waiting, .answered, .written, .streamOpening, .streaming:
                break
            }
        }
        trimHeapAfterAnswers()
    }

    /// Drops each event stream that has had something queued (here or in lws) for
    /// `--stream-stall-seconds` without its reader taking any of it: a reader that stopped
    /// reading would otherwise hold its queue, up to `--max-pending-bytes`, for as long as its
    /// connection lives.
    private func dropStalledStreams(now: Int64) {
        let limit = Instant.Span(config.streamStall).milliseconds
        let stalled = exchanges.values.filter { exchange in
            guard case .streaming = exchange.phase, now - exchange.progressed > limit else { return false }
            return exchange.queuedBytes > 0 || lws_partial_buffered(exchange.wsi) != 0
        }
        for exchange in stalled.sorted(by: { $0.id.rawValue < $1.id.rawValue }) {
            drop(
                exchange, over: .sendQueue,
                "took nothing of its event stream for \(config.streamStall.seconds) s "
                    + "(\(exchange.queuedBytes) bytes queued)")
        }
    }

    /// Once the large answers of a burst (16 MiB or more since the last trim) are all sent or
    /// dropped, gives their freed pages back to the kernel (`shuffleboard_trim_heap`): glibc
    /// keeps them, in the service thread's arena and in the reader's and encoder's, where the
    /// answers were encoded.
    func trimHeapAfterAnswers() {
        guard answeredBytes >= 16 << 20, !exchanges.values.contains(where: \.isSending) else { return }
        let bytes = answeredBytes
        answeredBytes = 0
        let released = shuffleboard_trim_heap() != 0
        log.debug("heap trimmed after \(bytes) bytes of HTTP answers" + (released ? "" : " (nothing to release)"))
    }

    /// Called after every pass of the service loop while lws still holds part of an answer:
    /// drops the connection if its client has sent more (or closed its side). lws would otherwise
    /// poll without waiting, pass after pass, until the whole answer is out.
    ///
    /// An exchange still sending its answer in pieces is checked at most every 50 ms (and at each
    /// of its pieces): a pass can come every few microseconds on a busy server, and a peek per
    /// such exchange per pass would cost more than the pieces themselves.
    func watchFlushing() {
        let now = Clock.microseconds()
        let watchSending = now >= sendingWatched + 50_000
        if watchSending { sendingWatched = now }
        for id in flushing {
            guard let exchange = exchanges[id],
                exchange.isSending || exchange.isStreaming
                    || (exchange.isWritten && lws_partial_buffered(exchange.wsi) != 0)
            else {
                flushing.remove(id)  // Sent, or ended (its lws pointer may be gone: never touch it).
                continue
            }
            guard exchange.isWritten || watchSending else { continue }
            guard clientSentMore(exchange) else { continue }
            if exchange.isStreaming {
                // An event stream's reader closing its side is how a stream normally ends.
                drop(exchange, nil)
            } else {
                drop(exchange, "sent more while its answer was still being sent")
            }
        }
    }

    /// Drops the exchange for a limit it went over (`--max-pending-bytes`, `--max-http-answer-bytes`):
    /// the hub counts it, and the log says why.
    func drop(_ exchange: HTTPExchange, over limit: LimitName, _ why: String) {
        port.handle(.transportCounted(.limit(limit)))
        drop(exchange, why)
    }

    /// Closes the connection at once, without sending what lws still holds for it.
    /// `why` nil: an event stream's client left (not worth a warning).
    func drop(_ exchange: HTTPExchange, _ why: String?) {
        if let why {
            clientLog.warning("HTTP client \(LWS.peer(of: exchange.wsi)) \(why); dropping the connection")
        } else {
            log.debug("HTTP client \(LWS.peer(of: exchange.wsi)) left its event stream")
        }
        exchanges[exchange.id] = nil
        flushing.remove(exchange.id)
        lws_set_timeout(exchange.wsi, PENDING_TIMEOUT_HTTP_CONTENT, LWS_TO_KILL_ASYNC)
        streamGone(exchange)
    }

    /// True when some connection's input sits in lws unparsed (lws then polls without waiting):
    /// perhaps this one's. Connections under rx flow control do not count.
    func lwsHoldsUnparsedInput() -> Bool {
        lws_service_adjust_timeout(context, 1, 0) == 0
    }

    /// True when the client has sent bytes (or closed its side) that lws has not parsed: in the
    /// socket, or in lws's own buffer for this connection.
    func clientSentMore(_ exchange: HTTPExchange) -> Bool {
        var byte: UInt8 = 0
        let peeked = recv(lws_get_socket_fd(exchange.wsi), &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if peeked >= 0 { return true }  // A byte, or the end of the client's stream.
        guard lwsHoldsUnparsedInput() else { return false }
        // Someone's input is held; whether it is this connection's shows when this one is paused.
        lws_rx_flow_control(exchange.wsi, 0)
        let othersHold = lwsHoldsUnparsedInput()
        lws_rx_flow_control(exchange.wsi, 1)
        return !othersHold
    }
}
