#define _GNU_SOURCE
#include <pthread.h>
#include <sys/eventfd.h>
#include "clinux.h"

/* Non-blocking and closed on exec: a wake-up counter for a poll(2) loop. */
int intervalpro_eventfd(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

/* Names the calling thread (at most 15 bytes), for top -H and /proc. */
int intervalpro_set_thread_name(const char *name) { return pthread_setname_np(pthread_self(), name); }
