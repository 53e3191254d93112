// libasound's types (Debian: libasound2-dev), and the functions IntervalPro uses, opened at run
// time.
//
// Linking libasound loads it into every command (about 0.2 ms of start-up) when only the
// metronome, voice cues and `doctor` play sound. `intervalpro_alsa_open` dlopens it when the
// first device is opened.
#include <dlfcn.h>
#include <alsa/asoundlib.h>

struct intervalpro_alsa {
    int (*pcm_open)(snd_pcm_t **pcm, const char *name, snd_pcm_stream_t stream, int mode);
    int (*pcm_close)(snd_pcm_t *pcm);
    snd_pcm_sframes_t (*pcm_writei)(snd_pcm_t *pcm, const void *buffer, snd_pcm_uframes_t size);
    int (*pcm_recover)(snd_pcm_t *pcm, int err, int silent);
    int (*pcm_drain)(snd_pcm_t *pcm);
    int (*hw_params_malloc)(snd_pcm_hw_params_t **params);
    void (*hw_params_free)(snd_pcm_hw_params_t *params);
    int (*hw_params_any)(snd_pcm_t *pcm, snd_pcm_hw_params_t *params);
    int (*hw_params_set_access)(snd_pcm_t *pcm, snd_pcm_hw_params_t *params, snd_pcm_access_t access);
    int (*hw_params_set_format)(snd_pcm_t *pcm, snd_pcm_hw_params_t *params, snd_pcm_format_t format);
    int (*hw_params_set_channels_near)(snd_pcm_t *pcm, snd_pcm_hw_params_t *params, unsigned int *channels);
    int (*hw_params_set_rate_near)(snd_pcm_t *pcm, snd_pcm_hw_params_t *params, unsigned int *rate, int *dir);
    int (*hw_params_set_buffer_time_near)(snd_pcm_t *pcm, snd_pcm_hw_params_t *params, unsigned int *time, int *dir);
    int (*hw_params_set_period_time_near)(snd_pcm_t *pcm, snd_pcm_hw_params_t *params, unsigned int *time, int *dir);
    int (*hw_params)(snd_pcm_t *pcm, snd_pcm_hw_params_t *params);
    int (*hw_params_get_period_size)(const snd_pcm_hw_params_t *params, snd_pcm_uframes_t *frames, int *dir);
    int (*hw_params_get_buffer_size)(const snd_pcm_hw_params_t *params, snd_pcm_uframes_t *frames);
    const char *(*strerror)(int errnum);
    int (*lib_error_set_handler)(snd_lib_error_handler_t handler);
};

// alsa-lib prints its own errors to stderr by default ("ALSA lib pcm.c:...: Unknown PCM").
// IntervalPro reports every failure itself from the returned status, once and clearly, so
// it installs this handler, which drops them. (The handler is variadic, which Swift
// cannot write, hence C here.)
static void intervalpro_alsa_quiet(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

// Opens libasound.so.2, fills `api` and silences the library's own messages; 0 when every
// function was found.
static inline int intervalpro_alsa_open(struct intervalpro_alsa *api) {
    void *handle = dlopen("libasound.so.2", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) return -1;
#define INTERVALPRO_ALSA_FIND(field, symbol) *(void **)(&api->field) = dlsym(handle, symbol)
    INTERVALPRO_ALSA_FIND(pcm_open, "snd_pcm_open");
    INTERVALPRO_ALSA_FIND(pcm_close, "snd_pcm_close");
    INTERVALPRO_ALSA_FIND(pcm_writei, "snd_pcm_writei");
    INTERVALPRO_ALSA_FIND(pcm_recover, "snd_pcm_recover");
    INTERVALPRO_ALSA_FIND(pcm_drain, "snd_pcm_drain");
    INTERVALPRO_ALSA_FIND(hw_params_malloc, "snd_pcm_hw_params_malloc");
    INTERVALPRO_ALSA_FIND(hw_params_free, "snd_pcm_hw_params_free");
    INTERVALPRO_ALSA_FIND(hw_params_any, "snd_pcm_hw_params_any");
    INTERVALPRO_ALSA_FIND(hw_params_set_access, "snd_pcm_hw_params_set_access");
    INTERVALPRO_ALSA_FIND(hw_params_set_format, "snd_pcm_hw_params_set_format");
    INTERVALPRO_ALSA_FIND(hw_params_set_channels_near, "snd_pcm_hw_params_set_channels_near");
    INTERVALPRO_ALSA_FIND(hw_params_set_rate_near, "snd_pcm_hw_params_set_rate_near");
    INTERVALPRO_ALSA_FIND(hw_params_set_buffer_time_near, "snd_pcm_hw_params_set_buffer_time_near");
    INTERVALPRO_ALSA_FIND(hw_params_set_period_time_near, "snd_pcm_hw_params_set_period_time_near");
    INTERVALPRO_ALSA_FIND(hw_params, "snd_pcm_hw_params");
    INTERVALPRO_ALSA_FIND(hw_params_get_period_size, "snd_pcm_hw_params_get_period_size");
    INTERVALPRO_ALSA_FIND(hw_params_get_buffer_size, "snd_pcm_hw_params_get_buffer_size");
    INTERVALPRO_ALSA_FIND(strerror, "snd_strerror");
    INTERVALPRO_ALSA_FIND(lib_error_set_handler, "snd_lib_error_set_handler");
#undef INTERVALPRO_ALSA_FIND
    if (!(api->pcm_open && api->pcm_close && api->pcm_writei && api->pcm_recover && api->pcm_drain &&
          api->hw_params_malloc && api->hw_params_free && api->hw_params_any && api->hw_params_set_access &&
          api->hw_params_set_format && api->hw_params_set_channels_near && api->hw_params_set_rate_near &&
          api->hw_params_set_buffer_time_near && api->hw_params_set_period_time_near && api->hw_params &&
          api->hw_params_get_period_size && api->hw_params_get_buffer_size && api->strerror &&
          api->lib_error_set_handler)) {
        dlclose(handle);
        return -1;
    }
    api->lib_error_set_handler(intervalpro_alsa_quiet);
    return 0;
}
