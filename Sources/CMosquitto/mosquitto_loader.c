/* libmosquitto, loaded when first used (issue 19: a small footprint). Each function Lodestone calls is defined here
 * under libmosquitto's own name, so the Swift code calls it as before; the first call dlopen()s libmosquitto.so.1 and
 * looks up every function below once. A process that never connects to a broker never maps the library (nor
 * libssl and libcrypto, which it brings).
 *
 * Without the library (or with one lacking a function), every call fails the way libmosquitto reports failure:
 * mosquitto_lib_init returns MOSQ_ERR_NOT_SUPPORTED, mosquitto_new returns NULL (errno ELIBACC), the other calls
 * MOSQ_ERR_NOT_SUPPORTED, and mosquitto_strerror and mosquitto_connack_string return the one-line reason naming the
 * Debian package. The list must name every mosquitto_ function a Swift target calls: a missing one is an undefined
 * symbol at link time. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#include "shim.h"

#define LODESTONE_NO_LIBRARY MOSQ_ERR_NOT_SUPPORTED
/* X(return type, name, parameters, arguments, what the call returns without the library); XV for void functions. */
#define LODESTONE_MOSQUITTO_FUNCTIONS(X, XV)                                                                           \
    X(const char *, mosquitto_connack_string, (int code), (code), unavailable)                                         \
    X(int, mosquitto_connect_async, (struct mosquitto * m, const char *host, int port, int keepalive),                 \
      (m, host, port, keepalive), LODESTONE_NO_LIBRARY)                                                                \
    XV(mosquitto_connect_callback_set, (struct mosquitto * m, void (*cb)(struct mosquitto *, void *, int)), (m, cb))  \
    XV(mosquitto_destroy, (struct mosquitto * m), (m))                                                                 \
    X(int, mosquitto_disconnect, (struct mosquitto * m), (m), LODESTONE_NO_LIBRARY)                                    \
    XV(mosquitto_disconnect_callback_set, (struct mosquitto * m, void (*cb)(struct mosquitto *, void *, int)),      \
       (m, cb))                                                                                                        \
    X(int, mosquitto_int_option, (struct mosquitto * m, enum mosq_opt_t option, int value), (m, option, value),        \
      LODESTONE_NO_LIBRARY)                                                                                            \
    X(int, mosquitto_lib_init, (void), (), LODESTONE_NO_LIBRARY)                                                       \
    X(int, mosquitto_loop_start, (struct mosquitto * m), (m), LODESTONE_NO_LIBRARY)                                    \
    X(int, mosquitto_loop_stop, (struct mosquitto * m, bool force), (m, force), LODESTONE_NO_LIBRARY)                  \
    X(int, mosquitto_max_inflight_messages_set, (struct mosquitto * m, unsigned int n), (m, n), LODESTONE_NO_LIBRARY) \
    XV(mosquitto_message_callback_set,                                                                                 \
       (struct mosquitto * m, void (*cb)(struct mosquitto *, void *, const struct mosquitto_message *)), (m, cb))     \
    X(struct mosquitto *, mosquitto_new, (const char *id, bool clean, void *object), (id, clean, object),              \
      (errno = ELIBACC, (struct mosquitto *)0))                                                                        \
    X(int, mosquitto_publish,                                                                                          \
      (struct mosquitto * m, int *mid, const char *topic, int length, const void *payload, int qos, bool retain),      \
      (m, mid, topic, length, payload, qos, retain), LODESTONE_NO_LIBRARY)                                             \
    XV(mosquitto_publish_callback_set, (struct mosquitto * m, void (*cb)(struct mosquitto *, void *, int)), (m, cb))  \
    X(int, mosquitto_reconnect_delay_set, (struct mosquitto * m, unsigned int delay, unsigned int max, bool backoff),  \
      (m, delay, max, backoff), LODESTONE_NO_LIBRARY)                                                                  \
    X(const char *, mosquitto_strerror, (int code), (code), unavailable)                                               \
    X(int, mosquitto_subscribe, (struct mosquitto * m, int *mid, const char *topic, int qos), (m, mid, topic, qos),    \
      LODESTONE_NO_LIBRARY)                                                                                            \
    X(int, mosquitto_tls_set,                                                                                          \
      (struct mosquitto * m, const char *cafile, const char *capath, const char *certfile, const char *keyfile,        \
       int (*password)(char *buffer, int size, int rwflag, void *user)),                                               \
      (m, cafile, capath, certfile, keyfile, password), LODESTONE_NO_LIBRARY)                                          \
    X(int, mosquitto_username_pw_set, (struct mosquitto * m, const char *user, const char *password),                  \
      (m, user, password), LODESTONE_NO_LIBRARY)                                                                       \
    X(int, mosquitto_will_set,                                                                                         \
      (struct mosquitto * m, const char *topic, int length, const void *payload, int qos, bool retain),                \
      (m, topic, length, payload, qos, retain), LODESTONE_NO_LIBRARY)

#define LODESTONE_SLOT(type, name, parameters, arguments, failure) type(*name) parameters;
#define LODESTONE_SLOT_VOID(name, parameters, arguments) void(*name) parameters;
static struct {
    LODESTONE_MOSQUITTO_FUNCTIONS(LODESTONE_SLOT, LODESTONE_SLOT_VOID)
} functions;
static int loaded;
static char unavailable[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *library = dlopen("libmosquitto.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(unavailable, sizeof unavailable,
                 "the MQTT link needs libmosquitto1: sudo apt install libmosquitto1 (%s)", dlerror());
        return;
    }
    const char *missing = 0;
#define LODESTONE_RESOLVE(type, name, parameters, arguments, failure)                                                  \
    if (!(*(void **)&functions.name = dlsym(library, #name)) && !missing) missing = #name;
#define LODESTONE_RESOLVE_VOID(name, parameters, arguments) LODESTONE_RESOLVE(void, name, parameters, arguments, )
    LODESTONE_MOSQUITTO_FUNCTIONS(LODESTONE_RESOLVE, LODESTONE_RESOLVE_VOID)
    if (missing) {
        snprintf(unavailable, sizeof unavailable,
                 "libmosquitto.so.1 has no %s: the MQTT link needs libmosquitto1 1.6 or newer", missing);
        return;
    }
    loaded = 1;
}

static int ready(void) {
    pthread_once(&once, load);
    return loaded;
}

#define LODESTONE_DEFINE(type, name, parameters, arguments, failure)                                                   \
    type name parameters {                                                                                             \
        if (!ready()) return failure;                                                                                  \
        return functions.name arguments;                                                                               \
    }
#define LODESTONE_DEFINE_VOID(name, parameters, arguments)                                                             \
    void name parameters {                                                                                             \
        if (ready()) functions.name arguments;                                                                         \
    }
LODESTONE_MOSQUITTO_FUNCTIONS(LODESTONE_DEFINE, LODESTONE_DEFINE_VOID)
