#ifndef INTERVALPRO_CDBUS_SHIM_H
#define INTERVALPRO_CDBUS_SHIM_H
#include <dbus/dbus.h>
#endif
