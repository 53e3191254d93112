import IntervalProCore
import Testing

@testable import IntervalProLaunch

@Suite("doctor's findings")
struct CheckupTests {
    static let notInGroup = Diagnosis(check: "bluetooth group", ok: false, detail: "this account is not in it", fix: "sudo usermod ...")

    /// Debian 12's policy lets every account talk to bluetoothd: doctor failed (69) an account
    /// whose `scan` worked, for not being in a group it did not need.
    @Test func theGroupIsNoProblemWhereBluetoothdAnswers() {
        let answered = Checkup.groupAsAsked([Self.notInGroup], bluetoothdAnswers: true)
        #expect(answered.first?.ok == true)
        #expect(!answered.contains(where: Checkup.blocks))
        let refused = Checkup.groupAsAsked([Self.notInGroup], bluetoothdAnswers: false)
        #expect(refused.first?.ok == false && refused.contains(where: Checkup.blocks))
    }
}
