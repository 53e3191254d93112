import Testing
@testable import IntervalProCore

/// Parses and returns the syntax error, or nil when `text` parses.
private func syntaxError(_ text: String) -> JSONSyntaxError? {
    do {
        _ = try JSONParser.parse(text)
        return nil
    } catch {
        return error
    }
}

private func string(_ text: String) throws -> String? {
    try JSONParser.parse(text).stringValue
}

@Suite("JSONParser")
struct JSONParserTests {
    @Test func scalars() throws {
        guard case .null = try JSONParser.parse("null").kind else { Issue.record("null"); return }
        guard case .bool(true) = try JSONParser.parse("true").kind else { Issue.record("true"); return }
        guard case .bool(false) = try JSONParser.parse(" false ").kind else { Issue.record("false"); return }
        #expect(try string(#""hello""#) == "hello")
        #expect(try string(#""""#) == "")
        #expect(try string(#""héllo ✓ 🏃""#) == "héllo ✓ 🏃")
    }

    @Test("numbers", arguments: [
        ("0", 0.0, true), ("-0", 0.0, true), ("7", 7, true), ("-12", -12, true), ("180", 180, true),
        ("12345678901234567890", 12345678901234567890.0, true),
        ("1.5", 1.5, false), ("-0.25", -0.25, false), ("1.0", 1, false),
        ("1e2", 100, false), ("1E+2", 100, false), ("25e-1", 2.5, false), ("-1.5e3", -1500, false),
    ])
    func numbers(text: String, value: Double, isInteger: Bool) throws {
        let node = try JSONParser.parse(text)
        guard case .number(let parsed, let integer) = node.kind else {
            Issue.record("\(text) is not a number")
            return
        }
        #expect(parsed == value)
        #expect(integer == isInteger)
        #expect(node.numberValue == value)
        #expect(node.typeName == "a number")
    }

    @Test func containersAndOffsets() throws {
        let text = #"{"a": [1, {"b": null}], "c" : "x"}"#
        let root = try JSONParser.parse(text)
        #expect(root.offset == 0)
        #expect(root.typeName == "an object")
        guard case .object(let members) = root.kind else { Issue.record("not an object"); return }
        #expect(members.map(\.key) == ["a", "c"])
        #expect(members[0].keyOffset == 1)
        #expect(members[1].keyOffset == byteOffset(of: #""c""#, in: text))
        let a = try #require(root["a"])
        #expect(a.offset == 6)
        #expect(a.typeName == "an array")
        guard case .array(let elements) = a.kind else { Issue.record("not an array"); return }
        #expect(elements.count == 2)
        #expect(elements[0].offset == 7)
        #expect(elements[1].offset == 10)
        #expect(elements[1]["b"]?.typeName == "null")
        #expect(root["c"]?.stringValue == "x")
        #expect(root["c"]?.offset == byteOffset(of: #""x""#, in: text))
        #expect(root["missing"] == nil)
        #expect(a["a"] == nil)  // subscript on a non-object
        #expect(a.stringValue == nil)
        #expect(a.numberValue == nil)
        #expect(try JSONParser.parse("true").typeName == "a boolean")
        #expect(try JSONParser.parse("\"\"").typeName == "a string")
        #expect(try JSONParser.parse(" \n\t\r[]\n").offset == 4)
    }

    @Test func emptyContainers() throws {
        guard case .object(let members) = try JSONParser.parse("{ }").kind else { Issue.record("object"); return }
        #expect(members.isEmpty)
        guard case .array(let elements) = try JSONParser.parse("[\n]").kind else { Issue.record("array"); return }
        #expect(elements.isEmpty)
    }

    @Test("escapes", arguments: [
        (#""a\"b""#, "a\"b"),
        (#""a\\b""#, "a\\b"),
        (#""a\/b""#, "a/b"),
        (#""\b\f\n\r\t""#, "\u{08}\u{0C}\n\r\t"),
        (#""\u0041\u00e9\u20AC""#, "Aé€"),
        (#""\u0000""#, "\u{0}"),
        (#""\uD83C\uDFC3""#, "🏃"),  // surrogate pair
        (#""x\uD834\uDD1Ey""#, "x𝄞y"),
        (#""\uDBFF\uDFFF""#, "\u{10FFFF}"),
        (#""plain é then \n""#, "plain é then \n"),
    ])
    func escapes(text: String, expected: String) throws {
        #expect(try string(text) == expected)
    }

    @Test("syntax errors and their offsets", arguments: [
        ("", 0, "unexpected end of input, expected a value"),
        ("   ", 3, "unexpected end of input, expected a value"),
        ("1 x", 2, "unexpected 'x' after the JSON value"),
        ("{} {}", 3, "unexpected '{' after the JSON value"),
        ("01", 1, "unexpected '1' after the JSON value"),
        ("[1,]", 3, "unexpected ']', expected a value"),
        ("[1 2]", 3, "expected ',' or ']' in an array, found '2'"),
        ("[1", 2, "unexpected end of input inside an array"),
        (#"{"a":1,}"#, 7, "expected a key in double quotes, found '}'"),
        ("{a:1}", 1, "expected a key in double quotes, found 'a'"),
        (#"{"a" 1}"#, 5, "expected ':' after key \"a\""),
        (#"{"a":1 "b":2}"#, 7, "expected ',' or '}' in an object, found '\"'"),
        (#"{"a":1"#, 6, "unexpected end of input inside an object"),
        (#"{"a":1,"a":2}"#, 7, "duplicate key \"a\""),
        (#"{"x":{"k":1, "k":2}}"#, 13, "duplicate key \"k\""),
        ("tru", 0, "invalid literal, expected 'true'"),
        ("[nul]", 1, "invalid literal, expected 'null'"),
        ("falsy", 0, "invalid literal, expected 'false'"),
        ("-", 0, "invalid number"),
        ("[-a]", 1, "invalid number"),
        ("1.", 0, "invalid number"),
        ("1.e5", 0, "invalid number"),
        ("[2e]", 1, "invalid number"),
        ("1e+", 0, "invalid number"),
        ("1e400", 0, "number out of range"),
        ("+1", 0, "unexpected '+', expected a value"),
        (".5", 0, "unexpected '.', expected a value"),
        (#"  "abc"#, 2, "unterminated string"),
        (#""abc\"#, 0, "unterminated string"),
        ("\"a\u{01}b\"", 2, "control character in a string"),
        ("\"a\nb\"", 2, "control character in a string"),
        (#""a\x""#, 2, "invalid escape '\\x'"),
        (#""\u12""#, 3, "truncated \\u escape"),
        (#""\u12G4""#, 5, "invalid \\u escape"),
        (#""\uD800""#, 7, "invalid \\u escape"),  // lone high surrogate
        (#""\uDC00""#, 7, "invalid \\u escape"),  // lone low surrogate
        (#""\uD800\u0041""#, 13, "invalid surrogate pair"),
        ("'a'", 0, "unexpected ''', expected a value"),
    ])
    func syntaxErrors(text: String, offset: Int, message: String) throws {
        let error = try #require(syntaxError(text), "\(text) should not parse")
        #expect(error.message == message)
        #expect(error.offset == offset)
    }

    @Test func depthLimit() throws {
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try JSONParser.parse(ok) }
        let objects = String(repeating: #"{"a":"#, count: 63) + "{}" + String(repeating: "}", count: 63)
        #expect(throws: Never.self) { try JSONParser.parse(objects) }

        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        let error = try #require(syntaxError(deep))
        #expect(error.message == "nesting deeper than 64 levels")
        #expect(error.offset == 64)

        // Very deep input fails cleanly instead of overflowing the stack.
        let hostile = String(repeating: "[", count: 100_000)
        #expect(syntaxError(hostile)?.message == "nesting deeper than 64 levels")

        // Depth is about nesting, not about how many containers there are.
        let wide = "[" + Array(repeating: "[[]]", count: 1000).joined(separator: ",") + "]"
        #expect(throws: Never.self) { try JSONParser.parse(wide) }
    }

    @Test func parsesBytesAndStringsAlike() throws {
        let text = #"{"k": [true, 2.5]}"#
        let fromBytes = try JSONParser.parse(Array(text.utf8))
        #expect(fromBytes["k"]?.offset == 6)
    }

    @Test func sourceLocation() {
        let bytes = Array("ab\ncd\n\nef".utf8)
        #expect(IntervalProCore.SourceLocation(offset: 0, in: bytes) == .init(line: 1, column: 1))
        #expect(IntervalProCore.SourceLocation(offset: 2, in: bytes) == .init(line: 1, column: 3))
        #expect(IntervalProCore.SourceLocation(offset: 3, in: bytes) == .init(line: 2, column: 1))
        #expect(IntervalProCore.SourceLocation(offset: 6, in: bytes) == .init(line: 3, column: 1))
        #expect(IntervalProCore.SourceLocation(offset: 8, in: bytes) == .init(line: 4, column: 2))
        #expect(IntervalProCore.SourceLocation(offset: 9, in: bytes) == .init(line: 4, column: 3))  // end of input
        #expect(IntervalProCore.SourceLocation(line: 12, column: 7).description == "12:7")
        // Characters, not bytes: "é" (2 bytes) and "🏃" (4) are a column each.
        let accented = Array("{\"é🏃\": x}".utf8)
        #expect(IntervalProCore.SourceLocation(offset: accented.firstIndex(of: UInt8(ascii: "x"))!, in: accented) == .init(line: 1, column: 8))
    }
}

@Suite("JSONValue")
struct JSONValueTests {
    @Test func compact() {
        let value = JSONValue.object([
            ("z", .int(-3)), ("a", .number(2.5)), ("n", .null), ("b", .bool(true)), ("s", .string("hi")),
            ("arr", .array([.int(1), .array([]), .object([])])), ("lit", .literal("1.500")),
        ])
        #expect(value.serialized() == #"{"z":-3,"a":2.5,"n":null,"b":true,"s":"hi","arr":[1,[],{}],"lit":1.500}"#)
    }

    /// JSON allows DEL and the C1 controls raw: `history --json` on a terminal passed a plan
    /// name's CSI (U+009B) to it. They are escaped, as C0 controls are; other text is not.
    @Test func controlsAreEscaped() throws {
        let value = JSONValue.string("a\u{1B}[31m\u{7F}\u{9B}2J\u{85}·°é")
        #expect(value.serialized() == #""a\u001b[31m\u007f\u009b2J\u0085·°é""#)
        #expect(try JSONParser.parse(value.serialized()).stringValue == "a\u{1B}[31m\u{7F}\u{9B}2J\u{85}·°é")
    }

    @Test func pretty() {
        let value = JSONValue.object([
            ("a", .array([.int(1), .int(2)])),
            ("b", .object([("c", .null)])),
            ("d", .array([.object([("e", .int(1))])])),
            ("f", .array([])),
        ])
        let expected = """
            {
              "a": [1, 2],
              "b": {
                "c": null
              },
              "d": [
                {
                  "e": 1
                }
              ],
              "f": []
            }
            """
        #expect(value.serialized(pretty: true) == expected)
    }

    @Test("number formatting", arguments: [
        (600.0, "600"), (-0.0, "0"), (0.5, "0.5"), (-2.25, "-2.25"), (1e15, "1000000000000000.0"), (1e16, "1e+16"), (123456789012.0, "123456789012"),
        (Double.nan, "null"), (Double.infinity, "null"),
    ])
    func numberFormatting(value: Double, text: String) {
        #expect(JSONValue.number(value).serialized() == text)
    }

    @Test func stringEscaping() throws {
        let raw = "q\"b\\n\nr\rt\t\u{01}\u{1F}é🏃/"
        let text = JSONValue.string(raw).serialized()
        #expect(text == #""q\"b\\n\nr\rt\t\u0001\u001fé🏃/""#)
        // What the writer writes, the parser reads back.
        #expect(try JSONParser.parse(text).stringValue == raw)
        #expect(JSONValue.object([("k\"ey", .int(1))]).serialized() == #"{"k\"ey":1}"#)
        // Without anything to escape, a string is written as it is, whatever its scripts.
        #expect(JSONValue.string("héllo ✓ 🏃 /").serialized() == "\"héllo ✓ 🏃 /\"")
        #expect(JSONValue.string("").serialized() == "\"\"")
    }

    @Test func nullable() {
        #expect(JSONValue.nullable(nil).serialized() == "null")
        #expect(JSONValue.nullable(3.5).serialized() == "3.5")
    }
}

/// Windows editors (Notepad, PowerShell's `Out-File -Encoding utf8`) save UTF-8 with a byte
/// order mark: a plan or recording saved there reads, and positions count from after it.
struct ByteOrderMarkTests {
    let mark: [UInt8] = [0xEF, 0xBB, 0xBF]

    @Test func aDocumentAfterAByteOrderMarkParses() throws {
        #expect(try JSONParser.parse(mark + Array(#"{"a": 1}"#.utf8))["a"]?.numberValue == 1)
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(Array(#"{"a": 1}"#.utf8) + mark) }
        let bytes = mark + Array("{\"a\": x}".utf8)
        do {
            _ = try JSONParser.parse(bytes)
            Issue.record("x is not a value")
        } catch {
            #expect(SourceLocation(offset: error.offset, in: bytes) == SourceLocation(line: 1, column: 7))
        }
    }

    @Test func aPlanAndARecordingWithAMarkAndWindowsLineEndsRead() throws {
        let plan = mark + Array("{\r\n  \"name\": \"N\",\r\n  \"steps\": [{\"kind\": \"work\", \"duration\": \"1:00\", \"cadence\": 170}]\r\n}\r\n".utf8)
        #expect(try PlanDecoder.decode(plan, file: "p.json").name == "N")
        let recording = mark + Array((#"{"intervalpro_recording":1,"devices":[{"id":"d"}]}"# + "\r\n" + #"{"t":1.000,"dev":"d","char":"2a37","hex":"0650"}"# + "\r\n").utf8)
        #expect(try RecordingParser.parse(recording, file: "r.jsonl").entries.count == 1)
    }
}
