/// Unguessable text from the system's random source (getrandom(2)): tokens and OAuth states.
public enum RandomText {
    /// `bytes` random bytes as lower-case hex (twice as many characters).
    public static func hex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return String(byte >> 4, radix: 16) + String(byte & 0xF, radix: 16)
        }.joined()
    }
}
