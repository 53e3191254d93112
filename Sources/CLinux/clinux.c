#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "clinux.h"

/* Non-blocking and closed on exec: a wake-up counter for a poll(2) loop. */
int intervalpro_eventfd(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

/* Names the calling thread (at most 15 bytes), for top -H and /proc. */
int intervalpro_set_thread_name(const char *name) { return pthread_setname_np(pthread_self(), name); }

int intervalpro_enable_receive_timestamps(int fd) {
    int on = 1;
    return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
}

ssize_t intervalpro_receive_timestamped(int fd, void *buffer, size_t length, int64_t *realtime_ns) {
    struct iovec vector = {.iov_base = buffer, .iov_len = length};
    union {
        char space[CMSG_SPACE(sizeof(struct timespec))];
        struct cmsghdr align;
    } control;
    struct msghdr message = {0};
    message.msg_iov = &vector;
    message.msg_iovlen = 1;
    message.msg_control = control.space;
    message.msg_controllen = sizeof control.space;
    ssize_t count = recvmsg(fd, &message, MSG_DONTWAIT);
    *realtime_ns = 0;
    if (count <= 0) return count;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_TIMESTAMPNS) {
            struct timespec stamp;
            memcpy(&stamp, CMSG_DATA(header), sizeof stamp);
            *realtime_ns = (int64_t)stamp.tv_sec * 1000000000 + stamp.tv_nsec;
        }
    }
    return count;
}

static int64_t stamp_of(struct msghdr *message) {
    for (struct cmsghdr *header = CMSG_FIRSTHDR(message); header; header = CMSG_NXTHDR(message, header)) {
        if (header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_TIMESTAMPNS) {
            struct timespec stamp;
            memcpy(&stamp, CMSG_DATA(header), sizeof stamp);
            return (int64_t)stamp.tv_sec * 1000000000 + stamp.tv_nsec;
        }
    }
    return 0;
}

#define MANY 64
int intervalpro_receive_many(int fd, uint8_t *buffer, size_t slot, int count, int32_t *lengths, int64_t *stamps) {
    struct mmsghdr messages[MANY];
    struct iovec vectors[MANY];
    union {
        char space[CMSG_SPACE(sizeof(struct timespec))];
        struct cmsghdr align;
    } controls[MANY];
    if (count > MANY) count = MANY;
    memset(messages, 0, sizeof messages);
    for (int i = 0; i < count; i++) {
        vectors[i].iov_base = buffer + (size_t)i * slot;
        vectors[i].iov_len = slot;
        messages[i].msg_hdr.msg_iov = &vectors[i];
        messages[i].msg_hdr.msg_iovlen = 1;
        messages[i].msg_hdr.msg_control = controls[i].space;
        messages[i].msg_hdr.msg_controllen = sizeof controls[i].space;
    }
    int received = recvmmsg(fd, messages, (unsigned)count, MSG_DONTWAIT, NULL);
    for (int i = 0; i < received; i++) {
        lengths[i] = (int32_t)messages[i].msg_len;
        stamps[i] = stamp_of(&messages[i].msg_hdr);
    }
    return received;
}

int64_t intervalpro_realtime_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

long long intervalpro_page_out_code(void) {
    FILE *maps = fopen("/proc/self/maps", "re");
    if (!maps) return -1;
    long long advised = 0;
    int failed = 0;
    char line[4096 + 256];
    while (fgets(line, sizeof line, maps)) {
        unsigned long start, end;
        char permissions[5];
        int path_at = 0;
        if (sscanf(line, "%lx-%lx %4s %*s %*s %*s %n", &start, &end, permissions, &path_at) < 3 || path_at == 0) continue;
        char *path = line + path_at;
        path[strcspn(path, "\n")] = '\0';
        /* Files' pages mapped read-only: the binary's and the libraries' code and constants.
           Paging out loses nothing (a page written since, such as relocated data, is kept or
           swapped); devices and shared memory are left as they are. */
        if (path[0] != '/' || strncmp(path, "/dev/", 5) == 0 || strncmp(path, "/memfd:", 7) == 0) continue;
        if (permissions[1] == 'w' || permissions[0] != 'r') continue;
        if (madvise((void *)start, end - start, MADV_PAGEOUT) == 0) advised += (long long)(end - start);
        else failed = errno;
    }
    fclose(maps);
    /* The heap's free pages, which malloc keeps for the next allocation. */
    malloc_trim(0);
    if (advised == 0 && failed) { errno = failed; return -1; }
    return advised;
}
