// libasound, through pkg-config `alsa` (Debian: libasound2-dev).
#include <alsa/asoundlib.h>

// alsa-lib prints its own errors to stderr by default ("ALSA lib pcm.c:...: Unknown PCM").
// IntervalPro reports every failure itself from the returned status, once and clearly, so
// it installs this handler, which drops them. (The handler is variadic, which Swift
// cannot write, hence C here.)
static void intervalpro_alsa_quiet(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

static inline int intervalpro_alsa_silence_library_messages(void) {
    return snd_lib_error_set_handler(intervalpro_alsa_quiet);
}
