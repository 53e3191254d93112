#ifndef INTERVALPRO_CQRENCODE_SHIM_H
#define INTERVALPRO_CQRENCODE_SHIM_H
// libqrencode, through pkg-config `libqrencode` (Debian: libqrencode-dev).
#include <qrencode.h>
#endif
