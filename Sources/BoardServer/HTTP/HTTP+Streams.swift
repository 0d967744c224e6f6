internal import Basics
internal import BoardCore
internal import BoardHub
internal import CLibWebSockets
import Foundation
internal import LWSSupport

/// Event streams (`GET /api/boards/{id}/events`, Server-Sent Events) on the HTTP part.
///
/// A stream is an exchange whose answer never ends: `200 text/event-stream` without a length
/// (lws then says `connection: close`: the body ends when the connection does), then the hub's
/// events as they come. It is written as a WebSocket reader's messages are: each event is
/// encoded once for every stream it goes to, queued per stream, and written one piece of at most
/// `--max-write-bytes` per HTTP_WRITEABLE. A stream whose queue would pass `--max-pending-bytes`
/// belongs to a reader that stopped reading: it is cut off (dropped), and the hub hears so. What
/// streams have queued counts against `--max-http-answer-bytes` (`stream(_:to:)`). A stream has
/// no `--http-timeout`, but one that takes nothing for `--stream-stall-seconds` is dropped
/// (`HTTP+Watching.swift`); a client that closes its side, or sends anything, is dropped
/// (`watchFlushing`), since lws would spin on the unread input.
extension HTTP {
    /// The hub opened a stream: its headers go out at the next HTTP_WRITEABLE.
    func openStream(_ id: ExchangeID) {
        guard let exchange = exchanges[id], exchange.isWaiting else { return }
        if exchange.request.method == .head {
            // HEAD gets the stream's headers and no stream.
            respond(id, HTTPResponse(status: 200, contentType: "text/event-stream", body: []), bounded: false)
            streamGone(exchange)
            return
        }
        guard case .write(let resume) = exchange.handle(.openStream) else { return }
        if resume { lws_rx_flow_control(exchange.wsi, 1) }
        // A stream has no deadline: lws must not time it out either.
        lws_set_timeout(exchange.wsi, NO_PENDING_TIMEOUT, 0)
        LWS.limitUnsent(exchange.wsi, to: config.unsentBytes, log: log)
        exchange.progressed = Clock.now().milliseconds
        flushing.insert(id)
        lws_callback_on_writable(exchange.wsi)
    }

    /// Queues one event for each of these streams, encoded once (a `reset` encoded off the service
    /// thread is one buffer shared by every queue); cuts off those that fall behind.
    ///
    /// What a stream has queued counts against `--max-http-answer-bytes` with every other answer
    /// held for a client. An event that would take that over the bound is queued only for a
    /// stream that is keeping up (nothing queued) when it is small (one write at most): a reader
    /// that keeps up always gets its ops, and the readers behind, or a new stream's large `reset`,
    /// are cut off instead (an `EventSource` reconnects with `Last-Event-ID` after its `retry`).
    func stream(_ event: StreamEvent, to ids: [ExchangeID]) {
        let bytes = event.encoded()
        let now = Clock.now().milliseconds
        for id in ids {
            guard let exchange = exchanges[id], exchange.isStreaming, !exchange.ending else { continue }
            if exchange.queuedBytes + bytes.count > config.maxPendingBytes {
                drop(
                    exchange, over: .sendQueue,
                    "fell behind its event stream (\(exchange.queuedBytes) bytes unsent, over "
                        + "--max-pending-bytes \(config.maxPendingBytes))")
                continue
            }
            if config.maxHTTPAnswerBytes > 0 && answerTally.bytes + bytes.count > config.maxHTTPAnswerBytes
                && (exchange.queuedBytes > 0 || bytes.count > config.maxWriteBytes)
            {
                drop(
                    exchange, over: .httpAnswers,
                    "is behind on its event stream while \(answerTally.bytes) bytes of answers are held for "
                        + "clients (--max-http-answer-bytes \(config.maxHTTPAnswerBytes))")
                continue
            }
            let wasEmpty = exchange.queue.isEmpty
            exchange.queue.append(bytes)
            exchange.queuedBytes += bytes.count
            exchange.hold(bytes.count)
            if wasEmpty {
                exchange.progressed = now
                if case .streaming = exchange.phase { lws_callback_on_writable(exchange.wsi) }
            }
        }
    }

    /// The hub ended these streams: each closes once its queue is out.
    func endStreams(_ ids: [ExchangeID]) {
        for id in ids {
            guard let exchange = exchanges[id] else { continue }
            if exchange.isWaiting {
                // Never opened: the hub has forgotten it; a plain answer ends it.
                respond(id, .error(503, "unavailable", "the stream ended before it began"))
                continue
            }
            guard exchange.isStreaming else { continue }
            exchange.ending = true
            exchange.isStreamRequest = false  // The hub has forgotten it already.
            if case .streaming = exchange.phase { lws_callback_on_writable(exchange.wsi) }
        }
    }

    /// The exchange ended or was dropped: when the hub took it for a stream, it hears so (once).
    func streamGone(_ exchange: HTTPExchange) {
        guard exchange.isStreamRequest else { return }
        exchange.isStreamRequest = false
        // What it still had queued is freed now (for `trimHeapAfterAnswers`).
        answeredBytes += exchange.queuedBytes
        exchange.release(exchange.queuedBytes)
        exchange.queue = FIFO()
        exchange.queuedBytes = 0
        port.handle(.streamEnded(exchange.id))
    }

    /// The stream's headers, and its first events when they are queued already.
    func writeStreamHead(_ exchange: HTTPExchange) -> Int32 {
        let pre = shuffleboard_lws_pre()
        var buffer = [UInt8](repeating: 0, count: pre + 1024)
        let status = buffer.withUnsafeMutableBufferPointer { raw -> Int32 in
            let start = raw.baseAddress! + pre
            var p: UnsafeMutablePointer<UInt8>? = start
            let end = start + 1024
            // No length (lws_filepos_t's all-ones, LWS_ILLEGAL_HTTP_CONTENT_LEN): lws adds
            // `connection: close`, and the body runs until the connection closes.
            guard
                lws_add_http_common_headers(exchange.wsi, 200, "text/event-stream", lws_filepos_t.max, &p, end) == 0
            else { return -1 }
            let headers = [
                ("x-content-type-options:", "nosniff"), ("cache-control:", "no-cache"),
                ("referrer-policy:", "no-referrer"), ("x-accel-buffering:", "no"),
            ]
            for (name, value) in headers {
                guard LWS.addHeader(exchange.wsi, name, value, &p, end) else { return -1 }
            }
            guard lws_finalize_http_header(exchange.wsi, &p, end) == 0, let q = p else { return -1 }
            let length = q - start
            return Int(lws_write(exchange.wsi, start, length, LWS_WRITE_HTTP_HEADERS)) == length ? 0 : -1
        }
        meters.httpResponses.add(StatusLabel(status: 200))
        log.debug("GET \(exchange.request.path) → 200, event stream")
        guard status == 0 else { return -1 }
        _ = exchange.handle(.headWritten(keepAlive: false, whole: false))
        if !exchange.queue.isEmpty || exchange.ending { lws_callback_on_writable(exchange.wsi) }
        return 0
    }

    /// The next piece of the stream's queue (at most `--max-write-bytes`); re-arms while more is
    /// queued. Once the hub ended the stream and the queue is out, closes the connection.
    func writeStreamPiece(_ exchange: HTTPExchange) -> Int32 {
        if exchange.queue.isEmpty { return exchange.ending ? -1 : 0 }
        let pre = shuffleboard_lws_pre()
        let start = scratch.baseAddress!.advanced(by: pre).assumingMemoryBound(to: UInt8.self)
        var length = 0
        // Several small events (an op each) go in one write, up to the write size.
        while let first = exchange.queue.first, length < config.maxWriteBytes {
            let take = min(config.maxWriteBytes - length, first.count - exchange.queueOffset)
            first.withUnsafeBufferPointer { bytes in
                (start + length).update(from: bytes.baseAddress! + exchange.queueOffset, count: take)
            }
            length += take
            exchange.queueOffset += take
            if exchange.queueOffset == first.count {
                _ = exchange.queue.popFirst()
                exchange.queueOffset = 0
            }
        }
        exchange.queuedBytes -= length
        exchange.release(length)
        exchange.progressed = Clock.now().milliseconds
        guard Int(lws_write(exchange.wsi, start, length, LWS_WRITE_HTTP)) == length else { return -1 }
        if !exchange.queue.isEmpty || exchange.ending { lws_callback_on_writable(exchange.wsi) }
        return 0
    }
}
