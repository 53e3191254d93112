// Small maths without Foundation or libm imports, precise enough for synthesis (these
// run once per session, never on the render path).

/// Sine by range reduction to [-π, π] and a Taylor series (error < 1e-12).
func sine(_ x: Double) -> Double {
    let twoPi = 2 * Double.pi
    var r = x - twoPi * (x / twoPi).rounded()
    // Fold into [-π/2, π/2], where the series converges fastest.
    if r > Double.pi / 2 { r = Double.pi - r } else if r < -Double.pi / 2 { r = -Double.pi - r }
    let r2 = r * r
    var term = r
    var sum = r
    for n in stride(from: 2, through: 26, by: 2) {
        term *= -r2 / Double(n * (n + 1))
        sum += term
    }
    return sum
}

func cosine(_ x: Double) -> Double { sine(x + Double.pi / 2) }

/// e^x by halving into range and squaring back.
func exponential(_ x: Double) -> Double {
    if x < -700 { return 0 }
    var halvings = 0
    var r = x
    while abs(r) > 0.5 {
        r /= 2
        halvings += 1
    }
    var term = 1.0
    var sum = 1.0
    for n in 1...20 {
        term *= r / Double(n)
        sum += term
    }
    for _ in 0..<halvings { sum *= sum }
    return sum
}
