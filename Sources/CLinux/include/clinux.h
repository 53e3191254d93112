#ifndef INTERVALPRO_CLINUX_H
#define INTERVALPRO_CLINUX_H
/* Linux calls that Swift's Glibc module does not export (they need _GNU_SOURCE or a header
   it leaves out). One function per call. */
int intervalpro_eventfd(void);
int intervalpro_set_thread_name(const char *name);
#include <stdint.h>
#include <sys/types.h>
/* Asks the kernel to stamp each packet a socket receives with its arrival time. */
int intervalpro_enable_receive_timestamps(int fd);
/* One recv(2) of one packet, non-blocking, with its arrival time (CLOCK_REALTIME, ns; 0 when
   the kernel gave none). Returns what recvmsg returns. */
ssize_t intervalpro_receive_timestamped(int fd, void *buffer, size_t length, int64_t *realtime_ns);
/* Up to `count` packets in one recvmmsg(2), non-blocking, into `count` slots of `slot` bytes:
   lengths[i] and arrival times stamps[i] (CLOCK_REALTIME ns). Returns how many, -1 with errno
   set, and a length of 0 for the end of the stream. */
int intervalpro_receive_many(int fd, uint8_t *buffer, size_t slot, int count, int32_t *lengths, int64_t *stamps);
/* CLOCK_REALTIME now, in ns: to turn packet stamps into the monotonic session clock. */
int64_t intervalpro_realtime_ns(void);
/* madvise(MADV_PAGEOUT) over the read-only file mappings (the program's and its libraries'
   code and constants), then malloc_trim: the pages start-up or a request touched are given
   back; what is used again faults back in from the file. Returns the bytes advised, or -1
   with errno set. */
long long intervalpro_page_out_code(void);
#endif
