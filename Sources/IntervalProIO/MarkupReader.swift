import CXML
import IntervalProCore
public import IntervalProFormats

/// Reads XML (.zwo workouts, TCX and GPX activities) into `MarkupElement` values with libxml2's reader,
/// opened at run time (see CXML/shim.h): namespace prefixes dropped, namespace declarations
/// not attributes, nothing fetched from the network, external entities never loaded.
public enum MarkupReader {
    public static func read(_ bytes: [UInt8]) throws(MarkupError) -> MarkupElement {
        let salvage = try readSalvaging(bytes)
        if let damage = salvage.damage { throw damage }
        return salvage.root
    }

    /// Reads as `read` does, except that a document cut off or damaged part way (a watch's
    /// file never finished) gives what comes before the damage: the elements still open
    /// are closed where they stop, and one that holds no whole element yet (the point that
    /// was being written) is left out. Throws only when there is no element to give.
    public static func readSalvaging(_ bytes: [UInt8]) throws(MarkupError) -> (root: MarkupElement, damage: MarkupError?) {
        // An empty processing instruction gets a plainer word than libxml2's own.
        if let line = emptyProcessingInstructionLine(bytes) {
            throw MarkupError(line: line, message: "a processing instruction with nothing in it (like <?xml?>)")
        }
        guard let api = library else {
            throw MarkupError(line: nil, message: "libxml2 is not installed (Debian: apt install libxml2)")
        }
        let (text, encoding) = decodable(bytes)
        // UTF-16 keeps its bytes: its "&" is not one byte.
        let escaped = startsWithUTF16Mark(bytes) ? text : escapingBareAmpersands(text)
        return try TreeBuilder(api: api).build(blankingLateDeclaration(escaped), encoding: encoding)
    }

    /// What libxml2 says of a document that ends before its elements close.
    static let endOfInputMessages = ["Extra content at the end of the document", "Premature end of data"]

    /// The number of the last line with more than white space on it (1 for none).
    static func lastLineWithContent(_ bytes: [UInt8]) -> Int {
        let whiteSpace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        guard let last = bytes.lastIndex(where: { !whiteSpace.contains($0) }) else { return 1 }
        return bytes[..<last].count(where: { $0 == 0x0A }) + 1
    }

    /// Whether `bytes` hold a `<` that begins an element (a name after it, not `?` or `!`).
    static func holdsStartTag(_ bytes: [UInt8]) -> Bool {
        zip(bytes, bytes.dropFirst()).contains { byte, next in
            byte == UInt8(ascii: "<")
                && ((0x41...0x5A).contains(next) || (0x61...0x7A).contains(next) || next == UInt8(ascii: "_") || next == UInt8(ascii: ":")
                    || next >= 0x80)
        }
    }

    /// `&` that begins no reference (`&amp;`, `&#233;`, `&#xE9;`) written as `&amp;`: older
    /// Zwift workouts hold "stop & go" in a name, which XML refuses and Zwift reads. No valid
    /// document changes (such an `&` is an error anywhere but in a comment, CDATA section or
    /// processing instruction, which are passed over), and every line keeps its number.
    static func escapingBareAmpersands(_ bytes: [UInt8]) -> [UInt8] {
        let ampersand = UInt8(ascii: "&")
        guard bytes.contains(ampersand) else { return bytes }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count + 16)
        var index = 0
        while index < bytes.count {
            // Comments, CDATA sections and processing instructions hold "&" as it is.
            if bytes[index] == UInt8(ascii: "<"), let past = [("<!--", "-->"), ("<![CDATA[", "]]>"), ("<?", "?>")].lazy.compactMap({ open, close in
                bytes[index...].starts(with: open.utf8) ? indexPast(close, in: bytes, from: index + open.utf8.count) : nil
            }).first {
                result += bytes[index..<past]
                index = past
                continue
            }
            result.append(bytes[index])
            if bytes[index] == ampersand, !beginsReference(bytes, at: index) { result += Array("amp;".utf8) }
            index += 1
        }
        return result
    }

    /// The index just past the first `close` from `start`, or the end of `bytes`.
    private static func indexPast(_ close: String, in bytes: [UInt8], from start: Int) -> Int {
        let close = Array(close.utf8)
        var index = start
        while index + close.count <= bytes.count {
            if bytes[index..<(index + close.count)].elementsEqual(close) { return index + close.count }
            index += 1
        }
        return bytes.count
    }

    /// Whether the `&` at `index` begins `&name;`, `&#digits;` or `&#xhex;`.
    private static func beginsReference(_ bytes: [UInt8], at index: Int) -> Bool {
        var next = index + 1
        let numeric = next < bytes.count && bytes[next] == UInt8(ascii: "#")
        let hexadecimal = numeric && next + 1 < bytes.count && bytes[next + 1] == UInt8(ascii: "x")
        if numeric { next += hexadecimal ? 2 : 1 }
        let start = next
        // Names of 64 characters at most: a longer run is no reference any file here holds.
        while next < bytes.count, next - start < 64 {
            let byte = bytes[next]
            let isDigit = (0x30...0x39).contains(byte)
            let isHexLetter = (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
            let isNameCharacter = isDigit || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || [UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: ":")].contains(byte) || byte >= 0x80
            guard numeric ? (isDigit || (hexadecimal && isHexLetter)) : isNameCharacter else { break }
            next += 1
        }
        return next > start && next < bytes.count && bytes[next] == UInt8(ascii: ";")
    }

    /// The document as libxml2 is to read it, and the encoding it is told. A byte order mark
    /// or an encoding declaration says it (older GPS tools write ISO-8859-1 and declare it,
    /// Windows tools UTF-16 with its mark): libxml2 reads those itself, a declaration passed on
    /// by name since a late one is blanked. Undeclared, XML is UTF-8; a file that declares
    /// nothing (or UTF-8) and is not UTF-8 is what a Windows tool wrote in its code page (a
    /// .zwo saved on Windows, say): read as Windows-1252, converted here, rather than refused.
    /// Only names and labels hold such text.
    static func decodable(_ bytes: [UInt8]) -> (bytes: [UInt8], encoding: String?) {
        if startsWithUTF16Mark(bytes) { return (bytes, nil) }
        // A UTF-16 declaration that reads as ASCII was not written in UTF-16: passed over.
        let declared = declaredEncoding(bytes)?.lowercased()
        if let declared, !declared.hasPrefix("utf-16"), !["utf-8", "utf8"].contains(declared) { return (bytes, declared) }
        // Told "UTF-8" only over a UTF-16 declaration: named, libxml2 converts UTF-8 to itself
        // chunk by chunk, 5-8 % of the time a GPX or TCX file takes to read.
        if String(validating: bytes, as: UTF8.self) != nil { return (bytes, declared?.hasPrefix("utf-16") == true ? "UTF-8" : nil) }
        // Not UTF-8 whatever it says: tools that write the declaration as boilerplate save
        // the text in their code page all the same.
        return (Windows1252.utf8(bytes), "UTF-8")
    }

    static func startsWithUTF16Mark(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF])
    }

    /// The `encoding` of the XML declaration that opens `bytes` (after whitespace, as Strava
    /// writes it), if it has one.
    static func declaredEncoding(_ bytes: [UInt8]) -> String? {
        var index = bytes.starts(with: utf8ByteOrderMark) ? utf8ByteOrderMark.count : 0
        while index < bytes.count, whitespace.contains(bytes[index]) { index += 1 }
        guard bytes[index...].starts(with: Array("<?xml".utf8)) else { return nil }
        var end = index
        while end + 1 < bytes.count, !(bytes[end] == UInt8(ascii: "?") && bytes[end + 1] == UInt8(ascii: ">")) { end += 1 }
        let declaration = Array(bytes[index..<end])
        let key = Array("encoding".utf8)
        guard var at = (0..<max(0, declaration.count - key.count + 1)).first(where: { declaration[$0...].starts(with: key) })
        else { return nil }
        at += key.count
        while at < declaration.count, whitespace.contains(declaration[at]) || declaration[at] == UInt8(ascii: "=") { at += 1 }
        guard at < declaration.count, let quote = [UInt8(ascii: "\""), UInt8(ascii: "'")].first(where: { $0 == declaration[at] }),
            let close = declaration[(at + 1)...].firstIndex(of: quote), close > at + 1
        else { return nil }
        return String(decoding: declaration[(at + 1)..<close], as: UTF8.self)
    }

    private static let whitespace: [UInt8] = [0x20, 0x09, 0x0A, 0x0D]

    /// Strava's exports put spaces before the XML declaration (`          <?xml ...?>`), which
    /// XML allows only at the very start: libxml2 refuses every such TCX and GPX file. The
    /// declaration says nothing else the reader needs (its encoding goes to libxml2 by name,
    /// `decodable(_:)`), so one that follows whitespace is overwritten with spaces; what is
    /// left is whitespace before the root element, which XML allows, and every line keeps its
    /// number.
    static func blankingLateDeclaration(_ bytes: [UInt8]) -> [UInt8] {
        guard let start = bytes.firstIndex(where: { !whitespace.contains($0) }), start > 0,
            bytes[start...].starts(with: Array("<?xml".utf8)), start + 5 < bytes.count, whitespace.contains(bytes[start + 5])
        else { return bytes }
        var end = start + 5
        while end + 1 < bytes.count, !(bytes[end] == UInt8(ascii: "?") && bytes[end + 1] == UInt8(ascii: ">")) { end += 1 }
        guard end + 1 < bytes.count else { return bytes }
        var blanked = bytes
        for index in start...(end + 1) where blanked[index] != 0x0A { blanked[index] = 0x20 }
        return blanked
    }

    /// libxml2, opened on the first read; nil when it cannot be.
    private static let library: intervalpro_xml? = {
        var api = intervalpro_xml()
        return intervalpro_xml_open(&api) == 0 ? api : nil
    }()

    /// The line of the first `<?name?>` (only whitespace after the name), if any.
    static func emptyProcessingInstructionLine(_ bytes: [UInt8]) -> Int? {
        var line = 1
        var index = 0
        while index + 1 < bytes.count {
            if bytes[index] == 0x0A { line += 1 }
            guard bytes[index] == UInt8(ascii: "<"), bytes[index + 1] == UInt8(ascii: "?") else {
                index += 1
                continue
            }
            var end = index + 2
            while end < bytes.count, ![0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "?")].contains(bytes[end]) { end += 1 }
            while end < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[end]) { end += 1 }
            if end + 1 < bytes.count, bytes[end] == UInt8(ascii: "?"), bytes[end + 1] == UInt8(ascii: ">") { return line }
            index += 2
        }
        return nil
    }

    /// Deeper nesting than any workout or activity needs is refused (and keeps a hostile
    /// file from exhausting the stack).
    static let maxDepth = 64

    /// One document through the reader: elements as they start and end, text and CDATA into
    /// the open element, the first error libxml2 reports.
    private final class TreeBuilder {
        let api: intervalpro_xml
        var stack: [MarkupElement] = []
        var texts: [String] = []
        var root: MarkupElement?
        var failure: MarkupError?
        /// The reader, while it reads: an error's line is where its parser stopped.
        var reader: UnsafeMutableRawPointer?

        init(api: intervalpro_xml) {
            self.api = api
        }

        func build(_ bytes: [UInt8], encoding: String?) throws(MarkupError) -> (root: MarkupElement, damage: MarkupError?) {
            var api = api
            intervalpro_xml_quiet(&api)
            let options = Int32(INTERVALPRO_XML_PARSE_NONET | INTERVALPRO_XML_PARSE_NOWARNING)
            let created = bytes.withUnsafeBufferPointer { buffer in
                buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    api.reader_for_memory($0, Int32(buffer.count), nil, encoding, options)
                }
            }
            guard let reader = created else { throw MarkupError(line: nil, message: "libxml2 could not start reading") }
            self.reader = reader
            defer {
                self.reader = nil
                api.free_reader(reader)
            }
            let context = Unmanaged.passUnretained(self).toOpaque()
            api.set_error_handler(reader, { context, message, severity, locator in
                let builder = Unmanaged<TreeBuilder>.fromOpaque(context!).takeUnretainedValue()
                guard builder.failure == nil else { return }
                let text = message.map { String(cString: $0) } ?? "not well-formed"
                // The locator's line is the node being read's: for a file cut short, the
                // <trkseg> open since line 5, not the cut 850 lines on. The parser's is where
                // it found the error.
                let parserLine = builder.reader.flatMap { reader in builder.api.parser_line.map { $0(reader) } } ?? 0
                let line = parserLine > 0 ? parserLine : builder.api.locator_line(locator)
                builder.failure = MarkupError(
                    line: line > 0 ? Int(line) : nil, message: text.trimmingWhitespace)
            }, context)
            // `bytes` stays alive for the whole read: libxml2 reads it in place.
            try withExtendedLifetime(bytes) { () throws(MarkupError) in
                while failure == nil, api.read(reader) == 1 {
                    step(reader)
                }
            }
            if var failure {
                // A file cut off part way, as libxml2 2.9 says it: "Extra content at the end of
                // the document" (a runner read that something was added to the file).
                if let open = stack.last, let line = failure.line, line >= MarkupReader.lastLineWithContent(bytes),
                    MarkupReader.endOfInputMessages.contains(where: failure.message.hasPrefix)
                {
                    failure = MarkupError(line: line, message: "the file ends inside <\(open.name)> (cut off part way)")
                }
                // Innermost first: an element with a whole child is closed into its parent.
                while let element = stack.popLast(), let text = texts.popLast() {
                    if !element.children.isEmpty { close(element, text: text) }
                }
                // Nothing to give. A file with no start tag at all (cut right after its
                // declaration) is said to be one, with libxml2's word ("Extra content at the end
                // of the document"); libxml2 may stop on a later error before the reader hands
                // over a first element, so only the bytes can say there is none.
                guard let root else {
                    guard !MarkupReader.holdsStartTag(bytes) else { throw failure }
                    throw MarkupError(line: failure.line, message: "no element in the document (\(failure.message))")
                }
                return (root, failure)
            }
            guard let root else {
                // libxml2 stops without a word where a declared encoding's conversion fails.
                let declared = encoding.flatMap { $0 == "UTF-8" ? nil : " (or none that reads as \($0), the encoding it declares)" }
                throw MarkupError(line: nil, message: "no element in the document" + (declared ?? ""))
            }
            return (root, nil)
        }

        private func step(_ reader: UnsafeMutableRawPointer) {
            switch api.node_type(reader) {
            case Int32(INTERVALPRO_XML_ELEMENT):
                guard stack.count < MarkupReader.maxDepth else {
                    failure = MarkupError(
                        line: line(reader), message: "elements nested more than \(MarkupReader.maxDepth) deep")
                    return
                }
                let element = MarkupElement(name: localName(reader), attributes: attributes(reader), line: line(reader) ?? 0)
                if api.is_empty_element(reader) == 1 {
                    close(element, text: "")
                } else {
                    stack.append(element)
                    texts.append("")
                }
            case Int32(INTERVALPRO_XML_TEXT), Int32(INTERVALPRO_XML_CDATA),
                Int32(INTERVALPRO_XML_SIGNIFICANT_WHITESPACE):
                guard !texts.isEmpty, let value = api.const_value(reader) else { return }
                texts[texts.count - 1] += String(cString: value)
            case Int32(INTERVALPRO_XML_END_ELEMENT):
                guard let element = stack.popLast(), let text = texts.popLast() else { return }
                close(element, text: text)
            default:
                break
            }
        }

        private func close(_ element: MarkupElement, text: String) {
            var element = element
            element.text = text.trimmingWhitespace
            if stack.isEmpty {
                root = element
            } else {
                stack[stack.count - 1].children.append(element)
            }
        }

        private func localName(_ reader: UnsafeMutableRawPointer) -> String {
            api.const_local_name(reader).map { String(cString: $0) } ?? ""
        }

        /// The element's attributes by local name; namespace declarations are not attributes.
        private func attributes(_ reader: UnsafeMutableRawPointer) -> [String: String] {
            var attributes: [String: String] = [:]
            while api.move_to_next_attribute(reader) == 1 {
                guard api.is_namespace_declaration(reader) != 1 else { continue }
                attributes[localName(reader)] = api.const_value(reader).map { String(cString: $0) } ?? ""
            }
            _ = api.move_to_element(reader)
            return attributes
        }

        /// The line libxml2 kept for the node the reader is on (its start tag).
        private func line(_ reader: UnsafeMutableRawPointer) -> Int? {
            guard let node = api.current_node(reader) else { return nil }
            let line = api.node_line(node)
            return line > 0 ? Int(line) : nil
        }
    }
}
