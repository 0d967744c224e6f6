import Foundation

extension CommandLineParser {
    /// The text `--help` prints.
    static let usage = """
        shuffleboard \(version): a real-time collaborative board server

        USAGE:
          shuffleboard serve [options]         run the server
          shuffleboard export BOARD [--data DIR | --store URL]   print a board (snapshot and op log) as JSON
          shuffleboard import FILE [--data DIR | --store URL] [--replace]   load a board exported before
          shuffleboard import-trello FILE --board ID [--data DIR | --store URL]
                                               make board ID from a Trello "Export as JSON"; prints the report
          shuffleboard token BOARD --auth-secret FILE [--role view|edit|admin] [--ttl 24h] [--name NAME]
                       [--user ID]             print an access token for BOARD (* for every board); --user
                                               names the person (sub): assignees and history use it
          shuffleboard revoke TOKEN --auth-secret FILE [--data DIR | --store URL]
                                               refuse TOKEN from now on, on every node (a running server
                                               sees it within a second; a SQLite directory must not be in use)
          shuffleboard reindex [--data DIR | --store URL]
                                               rebuild the search index from the boards' logs (a SQLite
                                               directory must not be in use; a server rebuilds what is
                                               missing or behind by itself when it starts)
          shuffleboard --help | --version

        \(Setting.usage)
        """
}

extension Setting {
    /// The settings as `--help` lists them: by section, each flag and its value in a column, then
    /// its help wrapped, ending with its default.
    static var usage: String {
        Section.allCases.map { section in
            ([section.heading] + table.filter { $0.section == section }.map(\.usageLines)).joined(separator: "\n")
        }.joined(separator: "\n\n")
    }

    /// This setting's lines in `--help`.
    private var usageLines: String {
        let lead = "  " + synopsis
        let indent = String(repeating: " ", count: 28)
        var lines: [String] = []
        var line = lead.count < 27 ? lead + String(repeating: " ", count: 28 - lead.count) : lead + "  "
        var start = true
        for word in "\(help) (default \(defaultText))".split(separator: " ") {
            if !start && line.count + 1 + word.count > 108 {
                lines.append(line)
                line = indent
                start = true
            }
            line += (start ? "" : " ") + word
            start = false
        }
        return (lines + [line]).joined(separator: "\n")
    }

    /// README's configuration table (between its `settings` markers).
    static var markdown: String {
        let rows = table.map { setting in
            let text = setting.readme ?? setting.help.replacingOccurrences(of: "|", with: "\\|")
            let synopsis = setting.synopsis.replacingOccurrences(of: "|", with: "\\|")
            return "| `\(synopsis)` | \(setting.defaultText) | \(text) |"
        }
        return (["| flag | default | |", "|---|---|---|"] + rows).joined(separator: "\n")
    }
}
