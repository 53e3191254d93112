// libespeak-ng's types (Debian: libespeak-ng-dev), and its functions opened at run time.
//
// The library is not linked: it pulls in some 25 others (PulseAudio, X11, audio codecs)
// that cost every command about 4 MB of memory and 3 ms of start-up, and only voice cues
// need it. `intervalpro_espeak_open` dlopens it on the first cue.
#include <dlfcn.h>
#include <espeak-ng/speak_lib.h>

struct intervalpro_espeak {
    int (*initialize)(espeak_AUDIO_OUTPUT output, int buflength, const char *path, int options);
    void (*set_synth_callback)(t_espeak_callback *callback);
    espeak_ERROR (*synth)(const void *text, size_t size, unsigned int position, espeak_POSITION_TYPE position_type,
                          unsigned int end_position, unsigned int flags, unsigned int *unique_identifier,
                          void *user_data);
    espeak_ERROR (*set_voice_by_name)(const char *name);
    espeak_ERROR (*set_parameter)(espeak_PARAMETER parameter, int value, int relative);
};

// Opens libespeak-ng.so.1 and fills `api`; 0 when every function was found.
static inline int intervalpro_espeak_open(struct intervalpro_espeak *api) {
    void *handle = dlopen("libespeak-ng.so.1", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) return -1;
    api->initialize = (int (*)(espeak_AUDIO_OUTPUT, int, const char *, int))dlsym(handle, "espeak_Initialize");
    api->set_synth_callback = (void (*)(t_espeak_callback *))dlsym(handle, "espeak_SetSynthCallback");
    api->synth = (espeak_ERROR(*)(const void *, size_t, unsigned int, espeak_POSITION_TYPE, unsigned int,
                                  unsigned int, unsigned int *, void *))dlsym(handle, "espeak_Synth");
    api->set_voice_by_name = (espeak_ERROR(*)(const char *))dlsym(handle, "espeak_SetVoiceByName");
    api->set_parameter = (espeak_ERROR(*)(espeak_PARAMETER, int, int))dlsym(handle, "espeak_SetParameter");
    return api->initialize && api->set_synth_callback && api->synth && api->set_voice_by_name && api->set_parameter
               ? 0
               : -1;
}
