// libdbus-1's types (Debian: libdbus-1-dev), and the functions IntervalPro uses, opened at run
// time.
//
// Linking libdbus-1 loads it, libsystemd and the compression and crypto libraries libsystemd
// needs (8 libraries, about 0.5 ms of start-up) into every command, when only those that talk
// to bluetoothd or a music player need them. `intervalpro_dbus_open` dlopens it when the first
// connection is opened. Each field has the type of the function it holds (`__typeof__`), so
// the table cannot drift from the header.
#ifndef INTERVALPRO_CDBUS_SHIM_H
#define INTERVALPRO_CDBUS_SHIM_H
#include <dlfcn.h>
#include <dbus/dbus.h>

#define INTERVALPRO_DBUS_FUNCTIONS(X) \
    X(bus_add_match) \
    X(bus_get_unique_name) \
    X(bus_request_name) \
    X(bus_set_unique_name) \
    X(connection_close) \
    X(connection_flush) \
    X(connection_get_is_authenticated) \
    X(connection_get_is_connected) \
    X(connection_get_unix_fd) \
    X(connection_has_messages_to_send) \
    X(connection_open_private) \
    X(connection_pop_message) \
    X(connection_read_write) \
    X(connection_send) \
    X(connection_send_with_reply_and_block) \
    X(connection_set_exit_on_disconnect) \
    X(connection_unref) \
    X(error_free) \
    X(error_init) \
    X(error_is_set) \
    X(free) \
    X(message_get_destination) \
    X(message_get_error_name) \
    X(message_get_interface) \
    X(message_get_member) \
    X(message_get_no_reply) \
    X(message_get_path) \
    X(message_get_reply_serial) \
    X(message_get_sender) \
    X(message_get_serial) \
    X(message_get_signature) \
    X(message_get_type) \
    X(message_iter_abandon_container) \
    X(message_iter_append_basic) \
    X(message_iter_append_fixed_array) \
    X(message_iter_close_container) \
    X(message_iter_get_arg_type) \
    X(message_iter_get_basic) \
    X(message_iter_get_element_type) \
    X(message_iter_get_fixed_array) \
    X(message_iter_get_signature) \
    X(message_iter_init) \
    X(message_iter_init_append) \
    X(message_iter_next) \
    X(message_iter_open_container) \
    X(message_iter_recurse) \
    X(message_new_error) \
    X(message_new_method_call) \
    X(message_new_method_return) \
    X(message_new_signal) \
    X(message_set_no_reply) \
    X(message_unref) \
    X(signature_validate) \
    X(signature_validate_single) \
    X(threads_init_default) \
    X(validate_bus_name) \
    X(validate_error_name) \
    X(validate_interface) \
    X(validate_member) \
    X(validate_path) \
    X(validate_utf8) \

struct intervalpro_dbus {
#define INTERVALPRO_DBUS_FIELD(name) __typeof__(&dbus_##name) name;
    INTERVALPRO_DBUS_FUNCTIONS(INTERVALPRO_DBUS_FIELD)
#undef INTERVALPRO_DBUS_FIELD
};

// Opens libdbus-1.so.3 and fills `api`; 0 when every function was found.
static inline int intervalpro_dbus_open(struct intervalpro_dbus *api) {
    void *handle = dlopen("libdbus-1.so.3", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) return -1;
#define INTERVALPRO_DBUS_FIND(name) \
    if ((*(void **)(&api->name) = dlsym(handle, "dbus_" #name)) == NULL) { dlclose(handle); return -1; }
    INTERVALPRO_DBUS_FUNCTIONS(INTERVALPRO_DBUS_FIND)
#undef INTERVALPRO_DBUS_FIND
    return 0;
}
#endif
