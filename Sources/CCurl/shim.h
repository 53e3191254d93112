// libcurl's types (Debian: libcurl4-openssl-dev), and the functions IntervalPro uses, opened
// at run time.
//
// Linking libcurl would load it and some 30 libraries it needs (TLS, Kerberos, LDAP, SSH)
// into every command, about 10 ms of start-up, when only the commands that talk to a
// service need it. `intervalpro_curl_open` dlopens it on the first request. curl's setopt
// and getinfo are variadic, which Swift cannot call: the typed wrappers below do.
#include <dlfcn.h>
#include <stddef.h>
#include <curl/curl.h>

struct intervalpro_curl {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *handle);
    CURLcode (*easy_setopt)(CURL *handle, CURLoption option, ...);
    CURLcode (*easy_perform)(CURL *handle);
    CURLcode (*easy_getinfo)(CURL *handle, CURLINFO info, ...);
    const char *(*easy_strerror)(CURLcode code);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *string);
    void (*slist_free_all)(struct curl_slist *list);
    curl_mime *(*mime_init)(CURL *handle);
    curl_mimepart *(*mime_addpart)(curl_mime *mime);
    CURLcode (*mime_name)(curl_mimepart *part, const char *name);
    CURLcode (*mime_data)(curl_mimepart *part, const char *data, size_t size);
    CURLcode (*mime_filename)(curl_mimepart *part, const char *filename);
    CURLcode (*mime_type)(curl_mimepart *part, const char *type);
    void (*mime_free)(curl_mime *mime);
    void *handle;
};

// Opens libcurl (the OpenSSL build, else the GnuTLS one) and fills `api`; 0 when every
// function was found and curl initialised.
static inline int intervalpro_curl_open(struct intervalpro_curl *api) {
    void *handle = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) handle = dlopen("libcurl-gnutls.so.4", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) return -1;
    api->handle = handle;
#define INTERVALPRO_CURL_FIND(field, symbol) *(void **)(&api->field) = dlsym(handle, symbol)
    INTERVALPRO_CURL_FIND(global_init, "curl_global_init");
    INTERVALPRO_CURL_FIND(easy_init, "curl_easy_init");
    INTERVALPRO_CURL_FIND(easy_cleanup, "curl_easy_cleanup");
    INTERVALPRO_CURL_FIND(easy_setopt, "curl_easy_setopt");
    INTERVALPRO_CURL_FIND(easy_perform, "curl_easy_perform");
    INTERVALPRO_CURL_FIND(easy_getinfo, "curl_easy_getinfo");
    INTERVALPRO_CURL_FIND(easy_strerror, "curl_easy_strerror");
    INTERVALPRO_CURL_FIND(slist_append, "curl_slist_append");
    INTERVALPRO_CURL_FIND(slist_free_all, "curl_slist_free_all");
    INTERVALPRO_CURL_FIND(mime_init, "curl_mime_init");
    INTERVALPRO_CURL_FIND(mime_addpart, "curl_mime_addpart");
    INTERVALPRO_CURL_FIND(mime_name, "curl_mime_name");
    INTERVALPRO_CURL_FIND(mime_data, "curl_mime_data");
    INTERVALPRO_CURL_FIND(mime_filename, "curl_mime_filename");
    INTERVALPRO_CURL_FIND(mime_type, "curl_mime_type");
    INTERVALPRO_CURL_FIND(mime_free, "curl_mime_free");
#undef INTERVALPRO_CURL_FIND
    if (!(api->global_init && api->easy_init && api->easy_cleanup && api->easy_setopt && api->easy_perform &&
          api->easy_getinfo && api->easy_strerror && api->slist_append && api->slist_free_all && api->mime_init &&
          api->mime_addpart && api->mime_name && api->mime_data && api->mime_filename && api->mime_type &&
          api->mime_free))
        return -1;
    return api->global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -1;
}

static inline CURLcode intervalpro_curl_set_long(const struct intervalpro_curl *api, CURL *h, CURLoption o, long v) {
    return api->easy_setopt(h, o, v);
}
static inline CURLcode intervalpro_curl_set_pointer(const struct intervalpro_curl *api, CURL *h, CURLoption o,
                                                    const void *v) {
    return api->easy_setopt(h, o, v);
}
static inline CURLcode intervalpro_curl_set_size(const struct intervalpro_curl *api, CURL *h, CURLoption o,
                                                 curl_off_t v) {
    return api->easy_setopt(h, o, v);
}
static inline CURLcode intervalpro_curl_set_callback(const struct intervalpro_curl *api, CURL *h, CURLoption o,
                                                     size_t (*v)(char *, size_t, size_t, void *)) {
    return api->easy_setopt(h, o, v);
}
static inline CURLcode intervalpro_curl_set_progress(const struct intervalpro_curl *api, CURL *h,
                                                     int (*v)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t)) {
    return api->easy_setopt(h, CURLOPT_XFERINFOFUNCTION, v);
}
static inline CURLcode intervalpro_curl_get_long(const struct intervalpro_curl *api, CURL *h, CURLINFO i, long *v) {
    return api->easy_getinfo(h, i, v);
}
