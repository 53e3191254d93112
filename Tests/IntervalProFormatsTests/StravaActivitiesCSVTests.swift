import Testing

@testable import IntervalProFormats

@Suite("Strava's activities.csv")
struct StravaActivitiesCSVTests {
    @Test("fields in quotes hold commas, line breaks and doubled quotes; lines end in CRLF or LF")
    func rowsAsRFC4180WritesThem() {
        let text = "a,\"b, c\",\"say \"\"hi\"\"\"\r\n\"two\r\nlines\",,x\nlast,row"
        #expect(CSV.rows(text) == [["a", "b, c", "say \"hi\""], ["two\r\nlines", "", "x"], ["last", "row"]])
        #expect(CSV.rows("") == [])
        #expect(CSV.rows("one\n") == [["one"]])
        // A quote left open runs to the end: never refused, never a crash.
        #expect(CSV.rows("a,\"open\nb") == [["a", "open\nb"]])
    }

    /// Read as Swift's characters, a quote and the combining mark after it were one character,
    /// not a quote: a quoted field that begins with a mark (a Hebrew point, an accent typed on
    /// its own) ran on past its comma. Found by the ActivitiesCSV fuzz target.
    @Test("the quotes, commas and line breaks are the bytes RFC 4180 names, whatever follows them")
    func delimitersAreBytes() {
        #expect(CSV.rows("\"\u{05B6}x\",y\n") == [["\u{05B6}x", "y"]])
        #expect(CSV.rows("\"a\"\"\u{301}\",b") == [["a\"\u{301}", "b"]])
        #expect(CSV.rows("a,\u{301}b\r\u{301}c") == [["a", "\u{301}b"], ["\u{301}c"]])
    }

    @Test("names by file, from the first of each column; rows without a name or a file are left out")
    func namesByFile() {
        let csv = """
            Activity ID,Activity Date,Activity Name,Activity Type,Activity Description,Elapsed Time,Filename,Elapsed Time,Filename\r
            101,"Mar 1, 2026, 7:00:00 AM",Morning Run,Run,"Easy,\r
            with friends",1800,activities/101.fit.gz,1800,other\r
            102,"Mar 2, 2026",  Tempo "Tuesday"  ,Run,,1200,activities/102.gpx,,\r
            103,"Mar 3, 2026",Manual run,Run,,600,,,\r
            104,"Mar 4, 2026",,Run,,600,activities/104.fit.gz,,\r
            105,short row\r

            """
        #expect(
            StravaActivitiesCSV.names(Array(csv.utf8)) == [
                "activities/101.fit.gz": "Morning Run", "activities/102.gpx": "Tempo \"Tuesday\"",
            ])
        #expect(StravaActivitiesCSV.names(Array("Activity ID,Activity Name\n1,Run\n".utf8)) == [:])
        #expect(StravaActivitiesCSV.names([0xFF, 0xFE, 0x00]) == [:])
        // A name typed over two lines is one line (its break showed as U+FFFD in the tables).
        let twoLines = "Activity Name,Filename\n\"Long run\r\nwith\tfriends\",activities/1.fit\n"
        #expect(StravaActivitiesCSV.names(Array(twoLines.utf8)) == ["activities/1.fit": "Long run with friends"])
    }

    /// Strava writes the header in the account's language: a German export's runs were all
    /// "Imported run", without a word. Read by the columns' order and the export's files.
    @Test("a header in another language: the file column by its activities/ files, the name third after the ids")
    func namesUnderAnotherLanguagesHeader() {
        let german = """
            Aktivitäts-ID,Datum der Aktivität,Name der Aktivität,Aktivitätsart,Beschreibung der Aktivität,Verstrichene Zeit,Distanz,Dateiname\r
            101,"01.03.2026, 07:00:00",Morgenlauf,Laufen,,1800,5.1,activities/101.fit.gz\r
            102,"02.03.2026, 18:00:00","Tempo, locker",Laufen,,1200,4.0,activities/102.GPX\r
            103,"03.03.2026, 07:00:00",Manuell,Laufen,,600,2.0,\r

            """
        #expect(
            StravaActivitiesCSV.names(Array(german.utf8)) == [
                "activities/101.fit.gz": "Morgenlauf", "activities/102.GPX": "Tempo, locker",
            ])
        // Not an export's layout (no ids first): no names rather than wrong ones.
        let other = "Datum,Name,Titel,Datei\n2026-03-01,a,Lauf,activities/1.fit\n"
        #expect(StravaActivitiesCSV.names(Array(other.utf8)) == [:])
    }
}
