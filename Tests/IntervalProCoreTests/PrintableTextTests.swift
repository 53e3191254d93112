import Testing
import IntervalProCore

/// Names others wrote (a shared plan, an activity, a Bluetooth device, a zip entry) reach the
/// terminal: its escape sequences retitled, recoloured or cleared it.
@Suite("Text others wrote, shown on a terminal")
struct PrintableTextTests {
    @Test func controlCharactersAreShownNotObeyed() {
        #expect("Track \u{1B}]0;PWNED\u{07}6x400".printable == "Track \u{FFFD}]0;PWNED\u{FFFD}6x400")
        #expect("a\u{1B}[2Jb\u{7F}c\u{9B}d".printable == "a\u{FFFD}[2Jb\u{FFFD}c\u{FFFD}d")
        #expect("Läufe 6×400 — ok".printable == "Läufe 6×400 — ok")
        #expect("two\nlines\tand\r".printable == "two\u{FFFD}lines\u{FFFD}and\u{FFFD}")
        #expect("two\nlines\tand\r".printable(keepingLineBreaks: true) == "two\nlines\tand\u{FFFD}")
    }

    @Test func aTableShowsItsCellsNotTheirEscapes() {
        let lines = TextTable.render(header: ["id", "plan"], rows: [["1", "Ladder\u{1B}[31m"]])
        #expect(lines[1] == "1   Ladder\u{FFFD}[31m")
        #expect(!lines.joined().unicodeScalars.contains { $0.value == 0x1B })
    }

    /// A label in Japanese took two columns a character and was counted one: the columns after
    /// it went out of line by up to 9.
    @Test func wideCharactersTakeTwoColumns() {
        #expect("インターバル".terminalWidth == 12)
        #expect("Läufe".terminalWidth == 5 && "La\u{0308}ufe".terminalWidth == 5)
        #expect("run 🏃".terminalWidth == 6 && "a\u{200B}b".terminalWidth == 2)
        let lines = TextTable.render(header: ["plan", "spm"], rows: [["インターバル", "170"], ["Easy", "160"]])
        // The cadence column starts where "spm" does, in every row.
        let header = String(lines[0].prefix { $0 != "s" }).terminalWidth
        let rows = lines.dropFirst().map { String($0.prefix { $0 != "1" }).terminalWidth }
        #expect(rows == [header, header], "\(lines)")
    }

    /// Counted a column a character, a Hindi step title wrapped on the live screen, which left
    /// a copy of it behind at every redraw: the figures are glibc's `wcswidth`, as tmux draws.
    @Test func charactersOfSeveralCellsCountThemAll() {
        #expect("हिन्दी".terminalWidth == 5 && "क्षक्षक्ष".terminalWidth == 6)
        #expect("👍🏿".terminalWidth == 4 && "🏳️\u{200D}🌈".terminalWidth == 3 && "👨\u{200D}👩\u{200D}👧".terminalWidth == 6)
        #expect("ﾊﾟ".terminalWidth == 2 && "a\u{AD}b".terminalWidth == 3 && "\u{1100}\u{1161}\u{11A8}".terminalWidth == 2)
        #expect("❤️".terminalWidth == 1 && "🇩🇪🇫🇷".terminalWidth == 4)
    }

    /// One plan name of 112 characters wrapped every row of `history` on 80 columns.
    @Test func aTableFitsItsWidthByCuttingOneColumn() {
        let long = String(repeating: "Lange Steigerungsläufe ", count: 5)
        let rows = [["1", long, "170"], ["2", "Easy", "160"]]
        let fitted = TextTable.render(header: ["id", "plan", "spm"], rows: rows, fitting: 40, shrinking: 1)
        #expect(fitted.allSatisfy { $0.terminalWidth <= 40 }, "\(fitted)")
        #expect(fitted[1].contains("…") && fitted[1].hasSuffix("170") && fitted[2].hasSuffix("160"), "\(fitted)")
        #expect(TextTable.render(header: ["id", "plan", "spm"], rows: rows)[1].contains(long.printable), "no width: whole")
        #expect("Steigerung".cut(toColumns: 6) == "Steig…" && "記録 recording".cut(toColumns: 6).terminalWidth <= 6)
    }

    @Test func aNarrowTableLeavesOutColumnsBeforeCuttingTheNameShort() {
        let header = ["id", "plan", "source", "zone", "spm"]
        let rows = [["1", "Tempo along the canal", "imported", "-", "170"]]
        let roomy = TextTable.fitted(header: header, rows: rows, fitting: 60, shrinking: 1, dropping: [3, 2])
        #expect(roomy.leftOut.isEmpty && roomy.lines[1].contains("Tempo along the canal"), "\(roomy)")
        // Room for the name once the empty column is out.
        let some = TextTable.fitted(header: header, rows: rows, fitting: 40, shrinking: 1, dropping: [3, 2])
        #expect(some.leftOut == [3] && some.lines[1] == "1   Tempo along the canal  imported  170", "\(some)")
        // Still short of 16 for the name: the source goes too, and the name is cut to what is left.
        let tight = TextTable.fitted(header: header, rows: rows, fitting: 24, shrinking: 1, dropping: [3, 2])
        #expect(tight.leftOut == [3, 2] && tight.lines.allSatisfy { $0.terminalWidth <= 24 }, "\(tight)")
        #expect(tight.lines[1] == "1   Tempo along th…  170", "\(tight)")
    }

    /// `readiness history` printed 38 and 3.64 in one row, 36.6 and 3.6 in the next.
    @Test func fixedFiguresKeepTheirDecimals() {
        #expect(formatFixed(37.976, 1) == "38.0" && formatFixed(3.6369, 2) == "3.64" && formatFixed(3.6, 2) == "3.60")
        #expect(formatFixed(-0.004, 2) == "0.00" && formatFixed(-1.05, 1) == "-1.1" && formatFixed(2.5, 0) == "3")
        #expect(formatFixed(nil, 1) == "-" && formatFixed(0.05, 2) == "0.05")
    }

    @Test func aStepTitleShowsItsLabel() {
        let step = TimelineStep(index: 0, kind: .work, label: "Fast\u{1B}]2;x\u{07}", end: .open)
        #expect(step.title == "Work · Fast\u{FFFD}]2;x\u{FFFD}")
    }
}
