package import BoardCore
import Synchronization

/// Decoded snapshots, kept by the store's reads of old seqs (`board(_:at:)`, which `?at=` and a
/// restore ask) so that the same few snapshots of a board are not parsed again for every read:
/// on a board of 10,000 cards a snapshot is a megabyte of JSON, and `JSON.parse` plus
/// `Board(json:)` were most of what an `?at=` cost (docs/performance.md, "Boards of 10,000 cards").
///
/// An entry is the decoded board of one snapshot row together with that row's JSON text, and it
/// is served only for a row whose text is byte for byte the same: a cached read returns exactly
/// what decoding the row would, whatever happened to the board in between — deleted and made
/// again, replaced by an import, restored, its snapshots thinned or compacted — and whoever did
/// it (in a cluster, another node writing the same database). The store drops a board's entries
/// when it deletes or replaces the board itself (`forget`), and a read that finds an entry's text
/// changed drops it; neither is needed for correctness, only to give the memory back sooner.
///
/// Bounded in bytes (`limit`): an entry counts its JSON text plus what its decoded board takes,
/// estimated as `decodedBytesPerJSONByte` times the text (measured on boards of short cards);
/// the least recently used entries go first, and a snapshot larger than the whole bound is not
/// kept. One instance per store, shared by its reads and writes: the mutex is its only owner.
package final class SnapshotCache: Sendable {
    /// The default bound: 64 MiB, about 11 snapshots of a 10,000-card board (1.1 MB of JSON each).
    package static let defaultLimit = 64 << 20
    /// What a decoded board takes in memory per byte of its JSON: 3.2 on a 10,000-card board of
    /// short cards (`shuffleboard-bench big-boards` prints it), rounded up.
    package static let decodedBytesPerJSONByte = 4

    private struct Key: Hashable {
        var board: BoardID
        var seq: Seq
    }

    private struct Entry {
        var json: [UInt8]
        var board: Board
        var cost: Int
        /// When it was last used, in uses of the cache (larger is more recent).
        var used: UInt64
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var bytes = 0
        var uses: UInt64 = 0
    }

    /// The most bytes the entries may count together.
    package let limit: Int
    private let state = Mutex(State())

    /// An empty cache of at most `limit` bytes (0: keeps nothing).
    package init(limit: Int = SnapshotCache.defaultLimit) {
        self.limit = max(limit, 0)
    }

    /// What an entry for a snapshot of `json` counts against the bound.
    package static func cost(ofJSON bytes: Int) -> Int { bytes * (1 + decodedBytesPerJSONByte) }

    /// The decoded board of `board`'s snapshot at `seq` when the cache has it for exactly this
    /// `json`; nil otherwise (an entry for other text is dropped: it can never be served again).
    func board(of board: BoardID, at seq: Seq, json: [UInt8]) -> Board? {
        state.withLock { state in
            let key = Key(board: board, seq: seq)
            guard var entry = state.entries[key] else { return nil }
            guard entry.json == json else {
                state.bytes -= entry.cost
                state.entries[key] = nil
                return nil
            }
            state.uses += 1
            entry.used = state.uses
            state.entries[key] = entry
            return entry.board
        }
    }

    /// Keeps `decoded`, the board `json` (the snapshot of `board` at `seq`) decodes to, evicting
    /// the least recently used entries to stay within the bound.
    func keep(_ decoded: Board, of board: BoardID, at seq: Seq, json: [UInt8]) {
        let cost = Self.cost(ofJSON: json.count)
        guard cost <= limit else { return }
        state.withLock { state in
            let key = Key(board: board, seq: seq)
            if let old = state.entries.removeValue(forKey: key) { state.bytes -= old.cost }
            while state.bytes + cost > limit, let oldest = state.entries.min(by: { $0.value.used < $1.value.used }) {
                state.bytes -= oldest.value.cost
                state.entries[oldest.key] = nil
            }
            state.uses += 1
            state.entries[key] = Entry(json: json, board: decoded, cost: cost, used: state.uses)
            state.bytes += cost
        }
    }

    /// Drops every entry of `board` (the store deleted or replaced it).
    package func forget(_ board: BoardID) {
        state.withLock { state in
            for key in state.entries.keys.filter({ $0.board == board }) {
                state.bytes -= state.entries.removeValue(forKey: key)?.cost ?? 0
            }
        }
    }

    /// What the entries count against the bound, in bytes.
    package var bytes: Int { state.withLock { $0.bytes } }

    /// The seqs of the snapshots kept of `board`, in order.
    package func seqs(of board: BoardID) -> [Seq] {
        state.withLock { state in state.entries.keys.filter { $0.board == board }.map(\.seq).sorted() }
    }
}
