package import BoardCore

/// One event of `GET /api/boards/{id}/events` (Server-Sent Events), encoded once for every
/// stream it goes to.
package enum StreamEvent: Equatable, Sendable {
    /// The first bytes of every stream: how long an `EventSource` waits before it reconnects.
    case opened
    /// Committed ops, in seq order: `id: SEQ`, `event: op`, `data: COMMITTED-OP` each.
    case ops([CommittedOp])
    /// The board as it is at `seq`: the stream's start when no `since` was given, or when the ops
    /// after it are no longer kept. `id: SEQ`, `event: reset`, `data: {"seq", "board"}`.
    case reset(Board, seq: Seq)
    /// `reset` encoded already, off the service thread (`StoreRead.encodeStreamReset`): the same
    /// bytes go to every stream that opens on the board at `seq`, and are not copied for each.
    case encodedReset(seq: Seq, bytes: [UInt8])
    /// The board was deleted; the stream ends. `event: deleted`, `data: {"deleted": ID}`.
    case deleted(BoardID)
    /// A comment line, so that proxies do not close a quiet stream.
    case keepalive
    /// In a cluster, a comment before the stream ends: another node serves the board (an
    /// `EventSource` reconnects after `retry`; a 503 would make it give up).
    case elsewhere(node: String)
    /// With access control, the stream's token was revoked; the stream ends.
    /// `event: revoked`, `data: {"reason":"token revoked"}`.
    case revoked
    /// With access control, the stream's token expired; the stream ends.
    /// `event: expired`, `data: {"reason":"token expired"}`.
    case expired

    /// The event as `text/event-stream` bytes (UTF-8; JSON never holds a raw line break).
    package func encoded() -> [UInt8] {
        var out: [UInt8] = []
        func event(_ id: Seq?, _ name: String, _ build: (inout JSONWriter) -> Void) {
            if let id { out.append(contentsOf: "id: \(id)\n".utf8) }
            out.append(contentsOf: "event: \(name)\ndata: ".utf8)
            var w = JSONWriter()
            build(&w)
            out.append(contentsOf: w.bytes)
            out.append(contentsOf: "\n\n".utf8)
        }
        switch self {
        case .opened:
            out.append(contentsOf: "retry: 1000\n\n".utf8)
        case .ops(let ops):
            for op in ops { event(op.seq, "op") { op.encode(into: &$0) } }
        case .reset(let board, let seq):
            event(seq, "reset") { w in
                w.beginObject()
                w.write("seq", seq)
                board.encode(into: &w, key: "board")
                w.endObject()
            }
        case .encodedReset(_, let bytes):
            return bytes  // Shared, not copied: the stream queues hold this one buffer.
        case .revoked, .expired:
            let why = self == .revoked ? "revoked" : "expired"
            event(nil, why) { w in
                w.beginObject()
                w.write("reason", "token \(why)")
                w.endObject()
            }
        case .deleted(let id):
            event(nil, "deleted") { w in
                w.beginObject()
                w.write("deleted", id.rawValue)
                w.endObject()
            }
        case .keepalive:
            out.append(contentsOf: ": keepalive\n\n".utf8)
        case .elsewhere(let node):
            // Node names are 1-128 of A-Z a-z 0-9 . _ - (`--node`): nothing to escape in a comment.
            out.append(contentsOf: ": board served by node \(node); reconnect\n\n".utf8)
        }
        return out
    }
}
