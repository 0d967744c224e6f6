internal import BoardCore

/// The search index of `MemoryStore`: an inverted index (each word → the documents that hold
/// it) with its vocabulary kept sorted, so that a query's prefix is a binary search and a run
/// of words, never a scan of the boards. Written under the store's lock with its boards, by the
/// same rules as the database stores' (`SearchRows`); always current, so never behind.
final class MemorySearchIndex: SearchRows {
    /// A document's key, as the database stores key their rows.
    struct Key: Hashable {
        var board: BoardID
        var item: String
        var seq: Seq
    }

    private struct Entry {
        var doc: SearchDoc
        /// How often each word is in the label and in the body.
        var counts: [String: (label: Int, body: Int)]
        /// How many words the document has.
        var length: Int
    }

    private var docs: [Key: Entry] = [:]
    private var postings: [String: Set<Key>] = [:]
    /// Every word of `postings`, sorted.
    private var vocabulary: [String] = []
    private var byBoard: [BoardID: Set<Key>] = [:]

    /// How many documents there are (for tests).
    var count: Int { docs.count }

    func putSearchDoc(_ doc: SearchDoc) {
        let key = Key(board: doc.board, item: doc.item, seq: doc.seq)
        remove(key)
        var counts: [String: (label: Int, body: Int)] = [:]
        let label = SearchQuery.words(of: doc.label)
        let body = SearchQuery.words(of: doc.body)
        for word in label { counts[word, default: (0, 0)].label += 1 }
        for word in body { counts[word, default: (0, 0)].body += 1 }
        docs[key] = Entry(doc: doc, counts: counts, length: label.count + body.count)
        byBoard[doc.board, default: []].insert(key)
        for word in counts.keys {
            if postings[word] == nil {
                vocabulary.insert(word, at: lowerBound(word))
                postings[word] = []
            }
            postings[word]!.insert(key)
        }
    }

    private func remove(_ key: Key) {
        guard let entry = docs.removeValue(forKey: key) else { return }
        byBoard[key.board]?.remove(key)
        if byBoard[key.board]?.isEmpty == true { byBoard[key.board] = nil }
        for word in entry.counts.keys {
            postings[word]?.remove(key)
            if postings[word]?.isEmpty == true {
                postings[word] = nil
                let i = lowerBound(word)
                if i < vocabulary.count && vocabulary[i] == word { vocabulary.remove(at: i) }
            }
        }
    }

    /// The first index of `vocabulary` whose word is not below `word`.
    private func lowerBound(_ word: String) -> Int {
        var low = 0
        var high = vocabulary.count
        while low < high {
            let mid = (low + high) / 2
            if vocabulary[mid] < word { low = mid + 1 } else { high = mid }
        }
        return low
    }

    func deleteSearchDoc(of id: BoardID, item: String, seq: Seq) { remove(Key(board: id, item: item, seq: seq)) }

    func deleteSearchDocs(of id: BoardID) {
        for key in byBoard[id] ?? [] { remove(key) }
    }

    func deleteCardSearchDocs(of id: BoardID) {
        for key in byBoard[id] ?? [] where key.seq == 0 { remove(key) }
    }

    /// Memory has no log the index could be behind.
    func markIndexed(_ id: BoardID, seq: Seq) {}
    func boardsBehindIndex(limit: Int) -> [BoardID] { [] }
    func lockBehindIndex(_ id: BoardID) -> Bool { false }

    func clearSearchIndex() {
        docs = [:]
        postings = [:]
        vocabulary = []
        byBoard = [:]
    }

    /// The documents holding a word that begins with `prefix`.
    private func keys(withPrefix prefix: String) -> Set<Key> {
        var keys = Set<Key>()
        var i = lowerBound(prefix)
        while i < vocabulary.count && vocabulary[i].hasPrefix(prefix) {
            keys.formUnion(postings[vocabulary[i]] ?? [])
            i += 1
        }
        return keys
    }

    func searchRows(_ query: SearchQuery, board: BoardID?, limit: Int) -> [SearchRow] {
        var found: Set<Key>?
        for word in query.words {
            let keys = keys(withPrefix: word)
            found = found.map { $0.intersection(keys) } ?? keys
            if found?.isEmpty == true { return [] }
        }
        var scored: [(score: Double, key: Key, entry: Entry, card: Entry?)] = []
        for key in found ?? [] where board.map({ $0 == key.board }) ?? true {
            guard let entry = docs[key] else { continue }
            var card: Entry?
            if key.seq > 0 {
                // A comment counts only while its card is on the board.
                guard let c = docs[Key(board: key.board, item: key.item, seq: 0)] else { continue }
                card = c
            }
            // As bm25 does in SQLite, roughly: a word in the label weighs four in the body, and
            // a long text weighs each word less.
            var score = 0.0
            for (word, count) in entry.counts where query.matches(word) {
                score += Double(4 * count.label + count.body)
            }
            scored.append((score / (1 + Double(entry.length).squareRoot()), key, entry, card))
        }
        scored.sort { a, b in
            if a.score != b.score { return a.score > b.score }
            if a.key.board != b.key.board { return a.key.board < b.key.board }
            return (a.key.item, a.key.seq) < (b.key.item, b.key.seq)
        }
        return scored.prefix(max(limit, 0)).map { s in
            let title = docs[Key(board: s.key.board, item: "", seq: 0)]?.doc.label ?? ""
            let card = s.card?.doc ?? s.entry.doc
            return SearchRow(
                doc: SearchDoc(
                    board: s.key.board, item: s.key.item, seq: s.key.seq, archived: card.archived, label: card.label,
                    body: s.entry.doc.body), boardTitle: title)
        }
    }
}
