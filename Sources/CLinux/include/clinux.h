#ifndef INTERVALPRO_CLINUX_H
#define INTERVALPRO_CLINUX_H
/* Linux calls that Swift's Glibc module does not export (they need _GNU_SOURCE or a header
   it leaves out). One function per call. */
int intervalpro_eventfd(void);
int intervalpro_set_thread_name(const char *name);
#endif
