import BoardCore
import BoardServer
import BoardStore
import Foundation

/// `shuffleboard-bench big-search [--cards N,N…] [--boards N] [--queries N]` (issue 36): the
/// latency of `GET /api/search` over many big boards in SQLite (FTS5), beside the same number of
/// boards of 1,000 cards in the same run (the reference: the same queries over a tenth of the index).
///
/// For each size, `--boards` boards of that many cards (BigBoards' boards: labels `Card number N
/// of the big board`, a detail, five columns) are written to one SQLite store, each indexed as it
/// is created. A server on that store is then asked, one request at a time, on an open server
/// (every board readable), with the default limit of results:
/// - a card's number, `q=N` for a random N of the board's cards: a few cards on each board (its
///   number as a word, and as the prefix of longer ones);
/// - a word on every card, `q=board`: every card of every board matches, the worst case for
///   ranking (bm25 of each match before the best are known).
struct BigSearch {
    static let usage = "usage: shuffleboard-bench big-search [--cards N,N…] [--boards N] [--queries N]"

    var sizes = [1_000, 10_000]
    var boards = 100
    var queries = 100

    static var options: [BenchOption<Self>] {
        [
            .sizes("--cards", \.sizes), .count("--boards", \.boards, most: 1_000),
            .count("--queries", \.queries, most: 100_000),
        ]
    }

    private struct Figures {
        var cards = 0
        /// Milliseconds to create and index each board.
        var fill: [Double] = []
        var rare: [Double] = []
        var rareHits: [Int] = []
        var common: [Double] = []
        var commonHits: [Int] = []
    }

    /// How many of the common query's slow samples are taken: a tenth of `queries`, at least 10.
    private var commonQueries: Int { max(queries / 10, 10) }

    func run() async throws {
        var all: [Figures] = []
        for cards in sizes { all.append(try await measure(cards: cards)) }
        print(
            "\(boards) boards per size in one SQLite store (FTS5), each indexed as it is created; GET /api/search,"
                + " one request at a time, default limit; \(queries) card-number queries, \(commonQueries) common-word; ms"
        )
        print("cards   boards   measure                     p50      p99      max   results")
        for f in all {
            let rows: [(String, [Double], [Int])] = [
                ("create+index a board", f.fill, []),
                ("q=<a card's number>", f.rare, f.rareHits),
                ("q=board (every card)", f.common, f.commonHits),
            ]
            for (name, samples, hits) in rows {
                let sorted = samples.sorted()
                let results =
                    hits.isEmpty ? "" : String(format: "%9.1f", Double(hits.reduce(0, +)) / Double(hits.count))
                print(
                    String(format: "%5d   %6d   ", f.cards, boards)
                        + name.padding(toLength: 24, withPad: " ", startingAt: 0)
                        + String(
                            format: "%7.1f  %7.1f  %7.1f", JoinStall.percentile(sorted, 0.5),
                            JoinStall.percentile(sorted, 0.99), sorted.last ?? 0) + results)
            }
        }
    }

    private func measure(cards: Int) async throws -> Figures {
        return try await withScratchStore("search-\(cards)") { store in
            var figures = Figures(cards: cards)
            for n in 0..<boards {
                let start = JoinStall.now()
                _ = try BigBoards.fill(store, BoardID("search\(n)")!, cards: cards, ops: 0)
                figures.fill.append(JoinStall.millis(since: start))
            }
            let (server, port) = try startServer(store: store)
            defer { server.stop() }
            var rng = SystemRandomNumberGenerator()
            for n in 0..<(queries + commonQueries) {
                let common = n >= queries
                let query = common ? "board" : String(Int.random(in: 1...cards, using: &rng))
                let path = "/api/search?q=\(query)"
                let start = JoinStall.now()
                let answer = try Scenarios.httpGet(path, port: port, timeout: 120)
                let ms = JoinStall.millis(since: start)
                guard answer.hasPrefix("HTTP/1.1 200") || answer.hasPrefix("HTTP/1.0 200") else {
                    throw BenchError(description: "\(path): \(answer.prefix(80))")
                }
                let hits = answer.components(separatedBy: #""item":"#).count - 1
                guard hits > 0 else { throw BenchError(description: "\(path) found nothing") }
                if common {
                    figures.common.append(ms)
                    figures.commonHits.append(hits)
                } else {
                    figures.rare.append(ms)
                    figures.rareHits.append(hits)
                }
            }
            return figures
        }
    }
}
