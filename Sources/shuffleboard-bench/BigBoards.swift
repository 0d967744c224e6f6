import BoardClient
import BoardCore
import BoardServer
import BoardStore
import Foundation

/// `shuffleboard-bench big-boards [--cards N,N…] [--joins N] [--requests N] [--ops N]` (issue 36):
/// what a board of 10,000 cards costs the server, beside the same on 1,000 cards in the same run.
///
/// For each size, boards of that many cards (short labels and a detail, in five columns) are
/// written to SQLite with the server's defaults (a snapshot every 100 ops), the first with
/// `--ops` moves after it. A server on that store then measures, one client at a time:
/// - a cold join: hello → welcome to a board not in memory (each cold board is joined once);
/// - a warm join: hello → welcome to the first board while another connection keeps it open;
/// - `GET /api/boards/{id}?at=SEQ` of a random seq in the older half of its history, alternated
///   with the plain `GET /api/boards/{id}` of the same board (the reference: the same bytes to send);
/// - a `moveMany` of 200 cards from one column to another, sent → committed op received;
/// - a `restore` to a random older seq, sent → committed op (with its board) received.
struct BigBoards {
    static let usage =
        "usage: shuffleboard-bench big-boards [--cards N,N…] [--joins N] [--requests N] [--ops N]"

    var sizes = [1_000, 10_000]
    var joins = 20
    var requests = 200
    var ops = 2_000

    init?(arguments: ArraySlice<String>) {
        // --ops is raised to 10 at least.
        let options: [BenchOption<Self>] = [
            .sizes("--cards", \.sizes), .count("--joins", \.joins, most: 200),
            .count("--requests", \.requests, most: 100_000), .int("--ops", \.ops, 1...Int.max),
        ]
        guard BenchOption.parse(arguments, into: &self, options) else { return nil }
        ops = max(ops, 10)
    }

    private let main = BoardID("big")!

    private struct Figures {
        var cards = 0
        var bytes = 0
        var cold: [Double] = []
        var warm: [Double] = []
        var at: [Double] = []
        var plain: [Double] = []
        var moveMany: [Double] = []
        var restore: [Double] = []
    }

    func run() async throws {
        // Before anything else has used (and freed) memory: the largest board's.
        let largest = sizes.max() ?? 0
        let decoded = try Self.decodedBytes(of: Self.board(main, cards: largest))
        var all: [Figures] = []
        for cards in sizes { all.append(try await measure(cards: cards)) }
        print(
            "boards in SQLite (server defaults: a snapshot every 100 ops), cards in 5 columns, \(ops) moves of history;"
                + " \(joins) joins of each kind, \(requests / 2) ?at= and \(requests / 2) plain GETs, \(max(joins / 2, 5)) of each op; ms"
        )
        if let f = all.first(where: { $0.cards == largest }) {
            print(
                "\(f.cards) cards: a decoded snapshot takes \(decoded / 1000) KB of memory,"
                    + String(format: " %.2f× its %d KB of JSON", Double(decoded) / Double(f.bytes), f.bytes / 1000))
        }
        print("cards   snapshot KB   measure                   p50      p99      max")
        for f in all {
            let rows: [(String, [Double])] = [
                ("hello→welcome cold", f.cold), ("hello→welcome warm", f.warm), ("?at= old seq", f.at),
                ("GET snapshot (ref.)", f.plain),
                ("moveMany of 200", f.moveMany), ("restore", f.restore),
            ]
            for (name, samples) in rows {
                let sorted = samples.sorted()
                print(
                    String(format: "%5d   %11d   ", f.cards, f.bytes / 1000)
                        + name.padding(toLength: 22, withPad: " ", startingAt: 0)
                        + String(
                            format: "%7.1f  %7.1f  %7.1f", JoinStall.percentile(sorted, 0.5),
                            JoinStall.percentile(sorted, 0.99), sorted.last ?? 0))
            }
        }
    }

    private func measure(cards: Int) async throws -> Figures {
        return try await withScratchStore("big-\(cards)") { store in
            var figures = Figures(cards: cards)
            figures.bytes = try Self.fill(store, main, cards: cards, ops: ops)
            let cold = (0..<joins).map { BoardID("cold\($0)")! }
            for id in cold { _ = try Self.fill(store, id, cards: cards, ops: 0) }
            let (server, port) = try startServer(store: store)
            defer { server.stop() }
            let loop = try ClientLoop()
            defer { loop.shutdown() }

            for id in cold {
                let (connection, ms, _) = try await join(id, loop: loop, port: port)
                figures.cold.append(ms)
                connection.close()
                _ = try? await connection.waitForClose(timeout: .seconds(5))
            }
            // The holder keeps the board in memory for the warm joins and sends the ops.
            let (holder, _, welcomeSeq) = try await join(main, loop: loop, port: port)
            defer { holder.close() }
            var seq = welcomeSeq
            for _ in 0..<joins {
                let (connection, ms, _) = try await join(main, loop: loop, port: port)
                figures.warm.append(ms)
                connection.close()
                _ = try? await connection.waitForClose(timeout: .seconds(5))
            }
            var rng = SystemRandomNumberGenerator()
            for n in 0..<requests {
                // Alternated with the plain snapshot of the same board (from memory, the same bytes
                // to send): the reference for what ?at= adds by reading and replaying the store.
                let at = Int.random(in: 1...(ops / 2), using: &rng)
                let path = n % 2 == 0 ? "/api/boards/big?at=\(at)" : "/api/boards/big"
                let start = JoinStall.now()
                let answer = try Scenarios.httpGet(path, port: port, timeout: 60)
                guard answer.hasPrefix("HTTP/1.1 200") || answer.hasPrefix("HTTP/1.0 200") else {
                    throw BenchError(description: "\(path): \(answer.prefix(80))")
                }
                if n % 2 == 0 {
                    figures.at.append(JoinStall.millis(since: start))
                } else {
                    figures.plain.append(JoinStall.millis(since: start))
                }
            }
            // moveMany: the first 200 cards of column 1 to the front of column 2, then back.
            let perColumn = cards / 5
            let moved = (0..<min(200, perColumn)).map { #""c\#($0 + 1)""# }.joined(separator: ",")
            for n in 0..<max(joins / 2, 5) {
                let zone = n % 2 == 0 ? "col2" : "col1"
                let message =
                    #"{"type":"moveMany","op":"mm\#(n)","base":\#(seq),"items":[\#(moved)],"zone":"\#(zone)","before":null}"#
                let (ms, committed) = try await commit(message, op: "mm\(n)", on: holder)
                figures.moveMany.append(ms)
                seq = committed
            }
            for n in 0..<max(joins / 2, 5) {
                let to = Int.random(in: 1...(ops / 2), using: &rng)
                let message = #"{"type":"restore","op":"rs\#(n)","base":\#(seq),"to":\#(to)}"#
                let (ms, committed) = try await commit(message, op: "rs\(n)", on: holder)
                figures.restore.append(ms)
                seq = committed
            }
            return figures
        }
    }

    /// A board of `cards` cards in five list columns.
    static func board(_ id: BoardID, cards: Int) -> Board {
        let items = (1...cards).map {
            Item(id: ItemID("c\($0)")!, label: "Card number \($0) of the big board", color: "#ffe08a", detail: "team")
        }
        let perColumn = (cards + 4) / 5
        let zones = (0..<5).map { z in
            Zone(
                id: ZoneID("col\(z + 1)")!,
                items: Array(items[min(z * perColumn, cards)..<min((z + 1) * perColumn, cards)].map(\.id)),
                title: "Column \(z + 1)", layout: .list)
        }
        return Board(id: id, title: "Big board", columns: 4, zones: zones, items: items)
    }

    /// A board of `cards` cards in five columns, then `ops` moves between the columns (in
    /// transactions of 500); its snapshot's size in bytes. BigSearch.swift fills its boards so too.
    static func fill(_ store: SQLiteStore, _ id: BoardID, cards: Int, ops: Int) throws -> Int {
        var board = Self.board(id, cards: cards)
        let zones = board.zones
        try store.write([.create(board)])
        try writeOps(ops, to: store, board: &board, timeStep: 1000, name: "Bench") { seq in
            // A card from deep in the board to the front of another column.
            .move(item: ItemID("c\((seq * 7919) % cards + 1)")!, zone: zones[seq % 5].id, before: nil)
        }
        return board.encoded().count
    }

    /// About what the board of `board`'s snapshot takes once decoded: the growth of the process's
    /// resident memory while eight decoded copies are held, over eight (the JSON tree each is read
    /// from is freed, and the next one reuses its memory), before the store or server exist.
    private static func decodedBytes(of board: Board) throws -> Int {
        let json = board.encoded(stored: true)
        func resident() -> Int {
            let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
            return (statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0) * Int(getpagesize())
        }
        let before = resident()
        var copies: [Board] = []
        for _ in 0..<8 { copies.append(try Board(json: JSON.parse(json), path: "snapshot")) }
        let after = resident()
        return withExtendedLifetime(copies) { max(after - before, 0) / copies.count }
    }

    /// Connects, says hello to `board` and waits for the welcome: the connection, the milliseconds
    /// from hello to the welcome's last byte (its parse is the client's, not measured), and its seq.
    private func join(_ board: BoardID, loop: ClientLoop, port: Int) async throws -> (ClientConnection, Double, Int) {
        let connection = try await loop.connect(port: port)
        let start = JoinStall.now()
        connection.send(#"{"type":"hello","board":"\#(board)","name":"bench"}"#)
        for _ in 0..<1000 {
            let text = try await connection.receive(timeout: .seconds(60))
            if text.utf8.starts(with: #"{"type":"error""#.utf8) {
                throw BenchError(description: String(text.prefix(200)))
            }
            guard text.utf8.starts(with: #"{"type":"welcome""#.utf8) else { continue }
            let ms = JoinStall.millis(since: start)
            let head = String(decoding: text.utf8.prefix(512), as: UTF8.self)
            return (connection, ms, Self.seq(in: head, after: head.startIndex) ?? 0)
        }
        throw BenchError(description: "no welcome from \(board)")
    }

    /// The number after the first `"seq":` from `from` on in `text` (the server writes a
    /// message's seq before its board, so nothing has to parse a megabyte to find it).
    private static func seq(in text: String, after from: String.Index) -> Int? {
        guard let key = text[from...].range(of: #""seq":"#) else { return nil }
        return Int(text[key.upperBound...].prefix { $0.isNumber })
    }

    /// Sends an op and waits for it to come back committed: the milliseconds to its last byte,
    /// and its seq.
    private func commit(_ message: String, op: String, on connection: ClientConnection) async throws -> (Double, Int) {
        let start = JoinStall.now()
        connection.send(message)
        for _ in 0..<10_000 {
            let text = try await connection.receive(timeout: .seconds(60))
            // Only the head of a message is searched: a restore's carries a megabyte of board after it.
            let head = String(decoding: text.utf8.prefix(512), as: UTF8.self)
            if head.contains(#""type":"reject""#) || head.contains(#""type":"error""#) {
                throw BenchError(description: "\(op): \(head.prefix(200))")
            }
            guard let mine = head.range(of: #""op":"\#(op)""#), let seq = Self.seq(in: head, after: mine.upperBound)
            else { continue }
            return (JoinStall.millis(since: start), seq)
        }
        throw BenchError(description: "\(op) never committed")
    }
}
