#ifndef YOULL_CMOSQUITTO_SHIM_H
#define YOULL_CMOSQUITTO_SHIM_H
// libmosquitto (Debian: libmosquitto-dev). The header is self-contained.
#include <mosquitto.h>
#endif
