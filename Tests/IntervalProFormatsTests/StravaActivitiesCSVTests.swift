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
}
