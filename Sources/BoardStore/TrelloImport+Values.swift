internal import BoardCore

// The values of a Trello export the import reads: label colors and timestamps.

/// Trello's label colors as CSS colors (its palette; `_dark` and `_light` shades as their base).
enum TrelloColor {
    static let palette: [String: String] = [
        "green": "#61bd4f", "yellow": "#f2d600", "orange": "#ff9f1a", "red": "#eb5a46", "purple": "#c377e0",
        "blue": "#0079bf", "sky": "#00c2e0", "lime": "#51e898", "pink": "#ff78cb", "black": "#344563",
    ]
    /// A label without a color.
    static let none = "#b3bac5"

    static func css(_ color: String?) -> String {
        guard let color else { return none }
        let base = color.split(separator: "_").first.map(String.init) ?? color
        return palette[base] ?? none
    }
}

/// A Trello timestamp, `YYYY-MM-DDTHH:MM:SS(.sss)Z`.
struct TrelloDate {
    let year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, millisecond: Int

    init?(_ text: String) {
        let b = Array(text.utf8)
        guard b.count >= 20, b.last == UInt8(ascii: "Z") else { return nil }
        func number(_ r: Range<Int>) -> Int? {
            var n = 0
            for i in r {
                guard i < b.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b[i]) else { return nil }
                n = n * 10 + Int(b[i] - UInt8(ascii: "0"))
            }
            return n
        }
        guard let y = number(0..<4), b[4] == UInt8(ascii: "-"), let mo = number(5..<7), b[7] == UInt8(ascii: "-"),
            let d = number(8..<10), b[10] == UInt8(ascii: "T"), let h = number(11..<13), b[13] == UInt8(ascii: ":"),
            let mi = number(14..<16), b[16] == UInt8(ascii: ":"), let s = number(17..<19)
        else { return nil }
        var ms = 0
        if b.count > 20 {
            guard b[19] == UInt8(ascii: "."), b.count <= 30, let fraction = number(20..<(b.count - 1)) else {
                return nil
            }
            let digits = b.count - 21
            ms = digits >= 3 ? fraction / Self.power(digits - 3) : fraction * Self.power(3 - digits)
        }
        guard DueDate.isValid(String(decoding: b[0..<10], as: UTF8.self)), h < 24, mi < 60, s < 61 else {
            return nil
        }
        (year, month, day, hour, minute, second, millisecond) = (y, mo, d, h, mi, s, ms)
    }

    private static func power(_ n: Int) -> Int { (0..<n).reduce(1) { a, _ in a * 10 } }

    /// `YYYY-MM-DDTHH:MMZ` (seconds are dropped: due dates count in minutes).
    var dueDate: String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let y = String(year)
        return String(repeating: "0", count: max(0, 4 - y.count)) + y
            + "-\(two(month))-\(two(day))T\(two(hour)):\(two(minute))Z"
    }

    /// Milliseconds since 1970 (days from the civil date, proleptic Gregorian).
    var milliseconds: Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = Int64(era * 146_097 + doe - 719_468)
        return ((days * 24 + Int64(hour)) * 60 + Int64(minute)) * 60_000 + Int64(second) * 1000 + Int64(millisecond)
    }
}
