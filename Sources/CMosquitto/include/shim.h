#ifndef LODESTONE_CMOSQUITTO_SHIM_H
#define LODESTONE_CMOSQUITTO_SHIM_H

/* Debian's libmosquitto (libmosquitto-dev): the MQTT 3.1.1/5 client library of the Eclipse Mosquitto project. */
#include <mosquitto.h>

#endif
