// What the format and HRV sources use of swift-numerics' RealModule (GPX distances, DFA), from the C
// library: the fuzz build compiles them without the package.
#if canImport(Glibc)
import Glibc
#endif

extension Double {
    static func sin(_ x: Double) -> Double { Glibc.sin(x) }
    static func cos(_ x: Double) -> Double { Glibc.cos(x) }
    static func asin(_ x: Double) -> Double { Glibc.asin(x) }
    static func log(_ x: Double) -> Double { Glibc.log(x) }
}
