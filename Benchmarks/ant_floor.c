/* The floor of reading an ANT USB stick through libusb (a benchmark, not a test): a foot pod
 * and a heart-rate monitor opened as openant opens them, then nothing but blocking bulk reads
 * that count the broadcast messages. No program that reads the stick through libusb does less
 * per message, so its CPU per message is what the kernel, libusb and a wake-up cost; the
 * real-stack suite's ant-usb-bench (make bench-ant-usb) measures it beside IntervalPro and
 * openant on the same virtual stick.
 *
 * Usage: ant_floor SECONDS   (prints "received N")
 * Build: cc -O2 -o ant_floor ant_floor.c $(pkg-config --cflags --libs libusb-1.0)
 */
#include <libusb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static libusb_device_handle *stick;

/* One ANT message: sync, length, id, content, XOR checksum (ANT Message Protocol, 7.1). */
static void send(uint8_t id, const uint8_t *content, uint8_t length) {
    uint8_t frame[16] = {0xA4, length, id};
    memcpy(frame + 3, content, length);
    uint8_t checksum = 0;
    for (int i = 0; i < length + 3; i++) checksum ^= frame[i];
    frame[length + 3] = checksum;
    int sent = 0;
    if (libusb_bulk_transfer(stick, 0x02, frame, length + 4, &sent, 1000) != 0) {
        fprintf(stderr, "ant_floor: writing message 0x%02x failed\n", id);
        exit(69);
    }
}

/* Reads for up to `milliseconds`; returns the broadcast messages (0x4E) in what came. */
static int drain(unsigned milliseconds) {
    uint8_t buffer[4096];
    int length = 0;
    if (libusb_bulk_transfer(stick, 0x81, buffer, sizeof buffer, &length, milliseconds) != 0) return 0;
    int broadcasts = 0;
    for (int i = 0; i + 3 < length; i += buffer[i + 1] + 4) {
        if (buffer[i] != 0xA4) break;
        if (buffer[i + 2] == 0x4E) broadcasts++;
    }
    return broadcasts;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 10;
    if (libusb_init(NULL) != 0) return 69;
    stick = libusb_open_device_with_vid_pid(NULL, 0x0fcf, 0x1008);
    if (!stick) stick = libusb_open_device_with_vid_pid(NULL, 0x0fcf, 0x1009);
    if (!stick) {
        fprintf(stderr, "ant_floor: no ANT USB stick\n");
        return 69;
    }
    libusb_set_auto_detach_kernel_driver(stick, 1);
    if (libusb_claim_interface(stick, 0) != 0) {
        fprintf(stderr, "ant_floor: the stick's interface cannot be claimed\n");
        return 69;
    }
    static const uint8_t key[] = {0, 0xB9, 0xA5, 0x21, 0xFB, 0xBD, 0x72, 0xC3, 0x45}; /* network 0, ANT+ */
    send(0x4A, (const uint8_t[]){0}, 1); /* reset */
    drain(500);
    send(0x46, key, sizeof key);
    drain(200);
    /* Channel 0: a foot pod (device type 124, period 8134); channel 1: a strap (120, 8070). */
    const uint8_t types[2] = {124, 120};
    const uint16_t periods[2] = {8134, 8070};
    for (uint8_t channel = 0; channel < 2; channel++) {
        send(0x42, (const uint8_t[]){channel, 0x00, 0}, 3);                                      /* assign: receive */
        drain(200);
        send(0x51, (const uint8_t[]){channel, 0, 0, types[channel], 0}, 5);                     /* id: any number */
        drain(200);
        send(0x43, (const uint8_t[]){channel, periods[channel] & 0xFF, periods[channel] >> 8}, 3); /* period */
        drain(200);
        send(0x44, (const uint8_t[]){channel, 12}, 2);                                          /* search timeout */
        drain(200);
        send(0x45, (const uint8_t[]){channel, 57}, 2);                                          /* 2457 MHz */
        drain(200);
        send(0x4B, (const uint8_t[]){channel}, 1);                                              /* open */
        drain(200);
    }
    long received = 0;
    double end = now() + seconds;
    while (now() < end) received += drain(1000);
    printf("received %ld\n", received);
    libusb_release_interface(stick, 0);
    libusb_close(stick);
    libusb_exit(NULL);
    return 0;
}
