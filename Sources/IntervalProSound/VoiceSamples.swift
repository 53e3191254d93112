/// Prepares synthesised speech for the mixer: converts to the output rate by linear
/// interpolation (speech has little above 5 kHz, so this is clean enough) and normalises
/// the peak to 1, so every cue plays at the same level under the mixer's headroom.
public enum VoiceSamples {
    public static func prepare(_ pcm: [Int16], from sourceRate: Int, to targetRate: Int) -> [Float] {
        guard !pcm.isEmpty, sourceRate > 0, targetRate > 0 else { return [] }
        let peak = Float(pcm.map { abs(Int($0)) }.max() ?? 0)
        let scale: Float = peak > 0 ? 1 / peak : 0
        let count = Int((Int64(pcm.count) * Int64(targetRate) + Int64(sourceRate) - 1) / Int64(sourceRate))
        var out = [Float](repeating: 0, count: count)
        let step = Double(sourceRate) / Double(targetRate)
        for i in 0..<count {
            let position = Double(i) * step
            let index = Int(position)
            let fraction = Float(position - Double(index))
            let a = Float(pcm[min(index, pcm.count - 1)])
            let b = Float(pcm[min(index + 1, pcm.count - 1)])
            out[i] = (a + (b - a) * fraction) * scale
        }
        return out
    }
}
