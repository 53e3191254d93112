import Foundation
import Testing

/// A Pi has no real-time clock: until the network sets it, its clock says 1970. Sessions and
/// mornings measured then were filed in 1970 without a word, and a 1970 session was uploaded
/// as a run of 2106 (a FIT file counts from 1989).
@Suite("a system clock not yet set")
struct ClockNotSetTests {
    /// A library preloaded into `intervalpro` that moves the wall clock (CLOCK_REALTIME, time,
    /// gettimeofday) by WALL_CLOCK_SHIFT seconds and nothing else, as a clock not yet set is to
    /// a program: monotonic time and timers run as they do.
    static let shiftSource = """
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <stdlib.h>
        #include <sys/time.h>
        #include <time.h>
        static long long shift(void) { const char *s = getenv("WALL_CLOCK_SHIFT"); return s ? atoll(s) : 0; }
        int clock_gettime(clockid_t id, struct timespec *ts) {
            static int (*real)(clockid_t, struct timespec *);
            if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
            int result = real(id, ts);
            if (result == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) ts->tv_sec += shift();
            return result;
        }
        time_t time(time_t *out) {
            struct timespec now;
            clock_gettime(CLOCK_REALTIME, &now);
            if (out) *out = now.tv_sec;
            return now.tv_sec;
        }
        int gettimeofday(struct timeval *tv, void *zone) {
            struct timespec now;
            clock_gettime(CLOCK_REALTIME, &now);
            if (tv) { tv->tv_sec = now.tv_sec; tv->tv_usec = now.tv_nsec / 1000; }
            return 0;
        }
        """

    /// The environment of a process whose clock says 1970-01-01T00:05:00Z, with its own folders.
    static func at1970(_ dir: ScratchDirectory) throws -> [String: String?] {
        let source = try dir.write("shift.c", shiftSource)
        let library = dir.path("shift.so")
        let built = try intervalpro(
            arguments: ["-c", #"exec "$(command -v clang || command -v cc)" -shared -fPIC -o "$1" "$2" -ldl"#, "sh", library, source],
            executable: "/bin/sh")
        try #require(built.status == 0, "the clock's shim did not build: \(built.stderr)")
        let shift = 300 - Int(Date().timeIntervalSince1970)
        return dir.ownFolders.merging(["LD_PRELOAD": library, "WALL_CLOCK_SHIFT": "\(shift)", "TZ": "UTC"]) { $1 }
    }

    @Test("a session, a morning and doctor say the clock is not set; the session is not uploaded nor exported as FIT")
    func saidAndNotSent() throws {
        let dir = try ScratchDirectory()
        let env = try Self.at1970(dir)
        let run = try intervalpro(
            arguments: ["run", "Plans/cadence-ladder.json", "--replay", "Recordings/cadence-ladder.jsonl", "--fast", "--json"],
            environment: env)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("the system clock says 1970-01-01 00:0"), "\(run.stderr)")
        #expect(run.stderr.contains("before this version was made: it is not set yet"), "\(run.stderr)")
        #expect(run.stderr.contains("the session is saved under that date"), "\(run.stderr)")

        let listed = try intervalpro(arguments: ["history", "--json"], environment: env)
        let sessions = try #require(jsonObject(listed.stdoutData)?["sessions"] as? [[String: Any]], "\(listed.stdout)")
        #expect((sessions.first?["started_at"] as? String)?.hasPrefix("1970-01-01T00:0") == true, "\(sessions)")

        let fit = try intervalpro(arguments: ["export", "last", "--format", "fit", "-o", dir.path("s.fit")], environment: env)
        #expect(fit.status == 65 && fit.stderr.contains("a FIT file cannot date it"), "\(fit.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path("s.fit")))
        let tcx = try intervalpro(arguments: ["export", "last", "--format", "tcx", "-o", dir.path("s.tcx")], environment: env)
        #expect(tcx.status == 0, "\(tcx.stderr)")
        #expect(try String(contentsOfFile: dir.path("s.tcx"), encoding: .utf8).contains("1970-01-01T00:0"))

        let morning = try dir.write("morning.txt", (0..<170).map { $0 % 2 == 0 ? "1000" : "960" }.joined(separator: "\n") + "\n")
        let readiness = try intervalpro(arguments: ["readiness", "--replay", morning], environment: env)
        #expect(readiness.status == 0 && readiness.stderr.contains("it is not set yet: this morning is dated so"), "\(readiness.stderr)")

        let doctor = try intervalpro(arguments: ["doctor", "--json"], environment: env)
        let checks = try #require(jsonObject(doctor.stdoutData)?["checks"] as? [[String: Any]], "\(doctor.stdout)")
        let clock = try #require(checks.first { $0["check"] as? String == "clock" })
        #expect(clock["ok"] as? Bool == false && (clock["detail"] as? String)?.contains("says 1970-01-01") == true, "\(clock)")
    }
}
