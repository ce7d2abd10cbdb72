#ifndef YOULL_CMOSQUITTO_SHIM_H
#define YOULL_CMOSQUITTO_SHIM_H
// libmosquitto (Debian: libmosquitto-dev). The header is self-contained.
#include <mosquitto.h>
// epoll, which Swift's Glibc module leaves out: the device simulator waits on a thousand
// libmosquitto sockets at once with it (DeviceSimulator/Swarm/SwarmReadiness.swift).
#ifdef __linux__
#include <sys/epoll.h>
#endif
#endif
