public import IntervalProCore

/// A spoken cue. The text depends on the language; the synthesiser turns it into samples.
public enum Cue: Equatable, Sendable {
    /// The step ahead (or starting now): "Work 3 of 8, 2 minutes, cadence 170".
    case step(TimelineStep)
    /// 3-2-1 into the next step.
    case count(Int)
    case halfway
    /// Out of zone: this many spm faster or slower reaches the target.
    case faster(Int)
    case slower(Int)
    /// The end of the session, with the in-zone share of the targeted time.
    case summary(inZonePercent: Int?, completed: Bool)

    /// A reminder of the zone ("faster", "slower").
    public var isCoaching: Bool {
        switch self {
        case .faster, .slower: true
        default: false
        }
    }

    public func text(_ language: CueLanguage) -> String {
        switch (self, language) {
        case (.step(let step), _): Self.stepText(step, language)
        case (.count(let n), _): "\(n)"
        case (.halfway, .en): "Halfway"
        case (.halfway, .es): "Mitad del intervalo"
        case (.faster(let n), .en): "Faster, \(n) more"
        case (.faster(let n), .es): "Más rápido, \(n) más"
        case (.slower(let n), .en): "Slower, \(n) less"
        case (.slower(let n), .es): "Más lento, \(n) menos"
        case (.summary(let percent, let completed), .en):
            (completed ? "Session complete." : "Session ended.")
                + (percent.map { " \($0) percent in zone." } ?? "")
        case (.summary(let percent, let completed), .es):
            (completed ? "Sesión completada." : "Sesión terminada.")
                + (percent.map { " \($0) por ciento en zona." } ?? "")
        }
    }

    static func stepText(_ step: TimelineStep, _ language: CueLanguage) -> String {
        var parts: [String] = []
        var title = kindName(step.kind, language)
        if let repetition = step.repetition {
            title += " \(repetition.number) \(language == .en ? "of" : "de") \(repetition.count)"
        }
        parts.append(title)
        if let label = step.label { parts.append(label) }
        switch step.end {
        case .time(let length): parts.append(durationText(length, language))
        case .distance(let metres): parts.append(distanceText(metres, language))
        case .open: break
        }
        if let zone = step.zone {
            parts.append("\(language == .en ? "cadence" : "cadencia") \(Int(zone.target.rounded()))")
        }
        return parts.joined(separator: ", ")
    }

    static func kindName(_ kind: StepKind, _ language: CueLanguage) -> String {
        switch (kind, language) {
        case (.warmup, .en): "Warm-up"
        case (.work, .en): "Work"
        case (.rest, .en): "Rest"
        case (.cooldown, .en): "Cool-down"
        case (.warmup, .es): "Calentamiento"
        case (.work, .es): "Trabajo"
        case (.rest, .es): "Descanso"
        case (.cooldown, .es): "Vuelta a la calma"
        }
    }

    static func durationText(_ length: SessionTime, _ language: CueLanguage) -> String {
        let total = Int((length.seconds).rounded())
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        func unit(_ n: Int, _ en: String, _ es: String) -> String {
            let word = language == .en ? en : es
            return "\(n) \(word)\(n == 1 ? "" : "s")"
        }
        var parts: [String] = []
        if h > 0 { parts.append(unit(h, "hour", "hora")) }
        if m > 0 { parts.append(unit(m, "minute", "minuto")) }
        if s > 0 || parts.isEmpty { parts.append(unit(s, "second", "segundo")) }
        return parts.joined(separator: language == .en ? " " : " y ")
    }

    static func distanceText(_ metres: Double, _ language: CueLanguage) -> String {
        if metres >= 1000, (metres / 100).rounded() == metres / 100 {
            let km = metres / 1000
            let text = km == km.rounded() ? "\(Int(km))" : "\(km)".replacingDot(language)
            return "\(text) \(language == .en ? (km == 1 ? "kilometre" : "kilometres") : (km == 1 ? "kilómetro" : "kilómetros"))"
        }
        let m = Int(metres.rounded())
        return "\(m) \(language == .en ? "metres" : "metros")"
    }
}

extension String {
    fileprivate func replacingDot(_ language: CueLanguage) -> String {
        language == .es ? String(map { $0 == "." ? "," : $0 }) : self
    }
}
