import CALSA
#if canImport(Glibc)
import Glibc
#endif

/// An ALSA status code: 0 or a negative errno, one value per C constant we act on.
public struct ALSAStatus: RawRepresentable, Equatable, Sendable, CustomStringConvertible {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let ok = ALSAStatus(rawValue: 0)
    /// Underrun (EPIPE): the device ran out of samples.
    public static let underrun = ALSAStatus(rawValue: -32)
    /// Suspended (ESTRPIPE), e.g. across a system sleep.
    public static let suspended = ALSAStatus(rawValue: -86)
    /// The device went away (ENODEV), e.g. a USB card unplugged.
    public static let noDevice = ALSAStatus(rawValue: -19)
    /// No such PCM (ENOENT).
    public static let notFound = ALSAStatus(rawValue: -2)
    /// Not ALSA's: a write that did not return when the player was stopped (ETIME).
    public static let stalled = ALSAStatus(rawValue: -62)

    public var description: String {
        if self == .stalled { return "it stopped taking sound" }
        guard let strerror = ALSALibrary.api?.strerror, let text = strerror(rawValue) else { return "error \(rawValue)" }
        return String(cString: text)
    }
}

/// libasound, opened when the first device is (see CALSA/shim.h); nil when it cannot be.
enum ALSALibrary {
    static let api: intervalpro_alsa? = {
        var api = intervalpro_alsa()
        return intervalpro_alsa_open(&api) == 0 ? api : nil
    }()
}

public struct ALSAError: Error, Sendable, CustomStringConvertible {
    public var device: String
    public var operation: String
    public var status: ALSAStatus
    public var description: String { "ALSA device '\(device)': \(operation): \(status)" }
}

/// What to ask the device for; it may negotiate something else (see `PCMPlayback`).
public struct AudioFormatRequest: Sendable, Equatable {
    public var sampleRate = 48_000
    public var channels = 2
    /// Device buffer length; a period is a quarter of it.
    public var latencyMicroseconds = 50_000

    public init(sampleRate: Int = 48_000, channels: Int = 2, latencyMicroseconds: Int = 50_000) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.latencyMicroseconds = latencyMicroseconds
    }
}

/// An open ALSA playback PCM: interleaved signed 16-bit little-endian samples.
///
/// A thin wrapper: one method per C call (through libasound's table, opened at run time),
/// statuses mapped to errors in `check`, and the handle closed in deinit. `write` and `recover` return plain statuses instead of
/// throwing, because the render thread calls them and must not allocate.
public final class PCMPlayback: @unchecked Sendable {
    public let device: String
    public let sampleRate: Int
    public let channels: Int
    public let periodFrames: Int
    public let bufferFrames: Int
    private let handle: OpaquePointer
    private let api: intervalpro_alsa

    /// The sound server's ALSA plugin reads these when the stream opens: clicks and cues are
    /// event sounds, which a desktop's role rules do not duck behind music (or duck the
    /// music for). The user's own setting wins.
    public static let eventRoleEnvironment = [
        ("PULSE_PROP", "media.role=event"),
        ("PIPEWIRE_PROPS", "{ media.role = \"Notification\" }"),
    ]

    static func askForEventRole() {
        for (name, value) in eventRoleEnvironment { setenv(name, value, 0) }
    }

    public init(device: String, request: AudioFormatRequest) throws(ALSAError) {
        self.device = device
        guard let api = ALSALibrary.api else {
            throw ALSAError(device: device, operation: "open libasound (Debian: apt install libasound2)", status: .notFound)
        }
        self.api = api
        Self.askForEventRole()
        var pcm: OpaquePointer?
        try Self.check(device, "open", api.pcm_open(&pcm, device, SND_PCM_STREAM_PLAYBACK, 0))
        guard let pcm else { throw ALSAError(device: device, operation: "open", status: .notFound) }
        handle = pcm
        var params: OpaquePointer?
        do {
            try Self.check(device, "allocate parameters", api.hw_params_malloc(&params))
        } catch {
            _ = api.pcm_close(pcm)
            throw error
        }
        defer { api.hw_params_free(params) }
        var rate = UInt32(request.sampleRate)
        var channels = UInt32(request.channels)
        var bufferTime = UInt32(request.latencyMicroseconds)
        var periodTime = UInt32(request.latencyMicroseconds / 4)
        var period: snd_pcm_uframes_t = 0
        var buffer: snd_pcm_uframes_t = 0
        do {
            try Self.check(device, "read hardware parameters", api.hw_params_any(pcm, params))
            try Self.check(
                device, "set interleaved access", api.hw_params_set_access(pcm, params, SND_PCM_ACCESS_RW_INTERLEAVED))
            try Self.check(device, "set format S16_LE", api.hw_params_set_format(pcm, params, SND_PCM_FORMAT_S16_LE))
            try Self.check(device, "set channels", api.hw_params_set_channels_near(pcm, params, &channels))
            try Self.check(device, "set rate", api.hw_params_set_rate_near(pcm, params, &rate, nil))
            try Self.check(device, "set buffer time", api.hw_params_set_buffer_time_near(pcm, params, &bufferTime, nil))
            try Self.check(device, "set period time", api.hw_params_set_period_time_near(pcm, params, &periodTime, nil))
            try Self.check(device, "apply hardware parameters", api.hw_params(pcm, params))
            try Self.check(device, "read period size", api.hw_params_get_period_size(params, &period, nil))
            try Self.check(device, "read buffer size", api.hw_params_get_buffer_size(params, &buffer))
        } catch {
            _ = api.pcm_close(pcm)
            throw error
        }
        sampleRate = Int(rate)
        self.channels = Int(channels)
        periodFrames = max(1, Int(period))
        bufferFrames = max(periodFrames, Int(buffer))
    }

    deinit {
        _ = api.pcm_close(handle)
    }

    /// Whether `device` opens for playback, without waiting for a card another program holds
    /// and without playing: nil when it does, else why not.
    public static func opens(_ device: String) -> ALSAError? {
        guard let api = ALSALibrary.api else {
            return ALSAError(device: device, operation: "open libasound (Debian: apt install libasound2)", status: .notFound)
        }
        askForEventRole()
        var pcm: OpaquePointer?
        let status = api.pcm_open(&pcm, device, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK)
        if let pcm { _ = api.pcm_close(pcm) }
        return status < 0 ? ALSAError(device: device, operation: "open", status: ALSAStatus(rawValue: status)) : nil
    }

    /// Writes interleaved frames, blocking until the device takes them. Returns the frames
    /// written or a negative status.
    public func write(_ samples: UnsafePointer<Int16>, frames: Int) -> Int {
        Int(api.pcm_writei(handle, samples, snd_pcm_uframes_t(frames)))
    }

    /// Recovers from an underrun or a suspend; returns .ok or the status that could not be
    /// recovered from (a lost device).
    public func recover(_ status: ALSAStatus) -> ALSAStatus {
        ALSAStatus(rawValue: api.pcm_recover(handle, status.rawValue, 1))
    }

    /// Plays what is buffered, then stops.
    public func drain() {
        _ = api.pcm_drain(handle)
    }

    /// The one place ALSA statuses become errors.
    static func check(_ device: String, _ operation: String, _ status: Int32) throws(ALSAError) {
        guard status < 0 else { return }
        throw ALSAError(device: device, operation: operation, status: ALSAStatus(rawValue: status))
    }
}
