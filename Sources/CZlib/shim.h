// zlib's types (Debian: zlib1g-dev), and its inflate functions opened at run time.
//
// Only a compressed export (a Strava bulk export's .fit.gz, Garmin Connect's .zip) needs
// them, so no command pays for loading the library at start-up. `intervalpro_zlib_open`
// dlopens it on the first such file.
#include <dlfcn.h>
#include <zlib.h>

struct intervalpro_zlib {
    int (*inflate_init2)(z_streamp stream, int window_bits, const char *version, int stream_size);
    int (*inflate)(z_streamp stream, int flush);
    int (*inflate_reset)(z_streamp stream);
    int (*inflate_end)(z_streamp stream);
    unsigned long (*crc32)(unsigned long crc, const unsigned char *bytes, unsigned int length);
};

// Opens libz.so.1 and fills `api`; 0 when every function was found.
static inline int intervalpro_zlib_open(struct intervalpro_zlib *api) {
    void *handle = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) return -1;
    api->inflate_init2 = (int (*)(z_streamp, int, const char *, int))dlsym(handle, "inflateInit2_");
    api->inflate = (int (*)(z_streamp, int))dlsym(handle, "inflate");
    api->inflate_reset = (int (*)(z_streamp))dlsym(handle, "inflateReset");
    api->inflate_end = (int (*)(z_streamp))dlsym(handle, "inflateEnd");
    api->crc32 = (unsigned long (*)(unsigned long, const unsigned char *, unsigned int))dlsym(handle, "crc32");
    return api->inflate_init2 && api->inflate && api->inflate_reset && api->inflate_end && api->crc32 ? 0 : -1;
}

// inflateInit2 is a macro over inflateInit2_ that passes the header's version and the
// stream's size, which the library checks against its own.
static inline int intervalpro_inflate_init2(const struct intervalpro_zlib *api, z_streamp stream, int window_bits) {
    return api->inflate_init2(stream, window_bits, ZLIB_VERSION, (int)sizeof(z_stream));
}
