// What the format sources use of swift-numerics' RealModule (GPX distances), from the C
// library: the fuzz build compiles them without the package.
#if canImport(Glibc)
import Glibc
#endif

extension Double {
    static func sin(_ x: Double) -> Double { Glibc.sin(x) }
    static func cos(_ x: Double) -> Double { Glibc.cos(x) }
    static func asin(_ x: Double) -> Double { Glibc.asin(x) }
}
