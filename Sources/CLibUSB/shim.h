// libusb-1.0's types (Debian: libusb-1.0-0-dev), and the functions an ANT stick needs, opened
// at run time.
//
// Only a session with ANT+ sensors needs them, so no other command pays for loading the
// library at start-up. `intervalpro_libusb_open` dlopens it once.
#include <dlfcn.h>
#include <libusb-1.0/libusb.h>

struct intervalpro_libusb {
    int (*initialize)(libusb_context **context);
    void (*exit)(libusb_context *context);
    ssize_t (*get_device_list)(libusb_context *context, libusb_device ***list);
    void (*free_device_list)(libusb_device **list, int unref_devices);
    int (*get_device_descriptor)(libusb_device *device, struct libusb_device_descriptor *descriptor);
    uint8_t (*get_bus_number)(libusb_device *device);
    uint8_t (*get_device_address)(libusb_device *device);
    int (*get_active_config_descriptor)(libusb_device *device, struct libusb_config_descriptor **config);
    void (*free_config_descriptor)(struct libusb_config_descriptor *config);
    int (*open)(libusb_device *device, libusb_device_handle **handle);
    void (*close)(libusb_device_handle *handle);
    int (*set_auto_detach_kernel_driver)(libusb_device_handle *handle, int enable);
    int (*claim_interface)(libusb_device_handle *handle, int interface_number);
    int (*release_interface)(libusb_device_handle *handle, int interface_number);
    struct libusb_transfer *(*alloc_transfer)(int iso_packets);
    void (*free_transfer)(struct libusb_transfer *transfer);
    int (*submit_transfer)(struct libusb_transfer *transfer);
    int (*cancel_transfer)(struct libusb_transfer *transfer);
    const struct libusb_pollfd **(*get_pollfds)(libusb_context *context);
    void (*free_pollfds)(const struct libusb_pollfd **pollfds);
    int (*handle_events_timeout_completed)(libusb_context *context, struct timeval *tv, int *completed);
    const char *(*error_name)(int code);
};

// Opens libusb-1.0.so.0 and fills `api`; 0 when every function was found.
static inline int intervalpro_libusb_open(struct intervalpro_libusb *api) {
    void *handle = dlopen("libusb-1.0.so.0", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) return -1;
#define INTERVALPRO_LIBUSB(field, symbol) api->field = (__typeof__(api->field))dlsym(handle, symbol); if (api->field == NULL) return -1;
    INTERVALPRO_LIBUSB(initialize, "libusb_init")
    INTERVALPRO_LIBUSB(exit, "libusb_exit")
    INTERVALPRO_LIBUSB(get_device_list, "libusb_get_device_list")
    INTERVALPRO_LIBUSB(free_device_list, "libusb_free_device_list")
    INTERVALPRO_LIBUSB(get_device_descriptor, "libusb_get_device_descriptor")
    INTERVALPRO_LIBUSB(get_bus_number, "libusb_get_bus_number")
    INTERVALPRO_LIBUSB(get_device_address, "libusb_get_device_address")
    INTERVALPRO_LIBUSB(get_active_config_descriptor, "libusb_get_active_config_descriptor")
    INTERVALPRO_LIBUSB(free_config_descriptor, "libusb_free_config_descriptor")
    INTERVALPRO_LIBUSB(open, "libusb_open")
    INTERVALPRO_LIBUSB(close, "libusb_close")
    INTERVALPRO_LIBUSB(set_auto_detach_kernel_driver, "libusb_set_auto_detach_kernel_driver")
    INTERVALPRO_LIBUSB(claim_interface, "libusb_claim_interface")
    INTERVALPRO_LIBUSB(release_interface, "libusb_release_interface")
    INTERVALPRO_LIBUSB(alloc_transfer, "libusb_alloc_transfer")
    INTERVALPRO_LIBUSB(free_transfer, "libusb_free_transfer")
    INTERVALPRO_LIBUSB(submit_transfer, "libusb_submit_transfer")
    INTERVALPRO_LIBUSB(cancel_transfer, "libusb_cancel_transfer")
    INTERVALPRO_LIBUSB(get_pollfds, "libusb_get_pollfds")
    INTERVALPRO_LIBUSB(free_pollfds, "libusb_free_pollfds")
    INTERVALPRO_LIBUSB(handle_events_timeout_completed, "libusb_handle_events_timeout_completed")
    INTERVALPRO_LIBUSB(error_name, "libusb_error_name")
#undef INTERVALPRO_LIBUSB
    return 0;
}
