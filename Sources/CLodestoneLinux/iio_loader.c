/* libiio, loaded when first used (issue 19: a small footprint). Each function Lodestone calls is defined here under
 * libiio's own name, so the Swift code calls it as before; the first call dlopen()s libiio.so.0 and looks up every
 * function below once. A process that never makes an IIO context never maps the library, nor what it brings
 * (libxml2 and ICU, libusb, avahi and D-Bus): about 4 MB of a small command's resident memory.
 *
 * Without the library (or with one lacking a function), lodestone_iio_unavailable() says why in one line naming the
 * Debian package (IIOContext checks it first), and every call fails the way libiio reports failure: NULL with errno
 * ELIBACC, a negative errno, zero counts, false. The list must name every iio_ function a Swift target calls: a
 * missing one is an undefined symbol at link time. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#include "shim.h"

#define LODESTONE_NULL(type) (errno = ELIBACC, (type)0)
/* X(return type, name, parameters, arguments, what the call returns without the library); XV for void functions. */
#define LODESTONE_IIO_FUNCTIONS(X, XV)                                                                                 \
    XV(iio_buffer_destroy, (struct iio_buffer * b), (b))                                                               \
    X(void *, iio_buffer_end, (const struct iio_buffer *b), (b), LODESTONE_NULL(void *))                               \
    X(void *, iio_buffer_first, (const struct iio_buffer *b, const struct iio_channel *c), (b, c),                     \
      LODESTONE_NULL(void *))                                                                                          \
    X(ssize_t, iio_buffer_refill, (struct iio_buffer * b), (b), -ELIBACC)                                              \
    X(void *, iio_buffer_start, (const struct iio_buffer *b), (b), LODESTONE_NULL(void *))                             \
    X(ptrdiff_t, iio_buffer_step, (const struct iio_buffer *b), (b), 0)                                                \
    X(ssize_t, iio_channel_attr_read, (const struct iio_channel *c, const char *a, char *dst, size_t n),               \
      (c, a, dst, n), -ELIBACC)                                                                                        \
    X(int, iio_channel_attr_read_double, (const struct iio_channel *c, const char *a, double *v), (c, a, v),           \
      -ELIBACC)                                                                                                        \
    X(ssize_t, iio_channel_attr_write, (const struct iio_channel *c, const char *a, const char *src), (c, a, src),     \
      -ELIBACC)                                                                                                        \
    XV(iio_channel_convert, (const struct iio_channel *c, void *dst, const void *src), (c, dst, src))                  \
    XV(iio_channel_disable, (struct iio_channel * c), (c))                                                             \
    XV(iio_channel_enable, (struct iio_channel * c), (c))                                                              \
    X(const char *, iio_channel_find_attr, (const struct iio_channel *c, const char *name), (c, name),                 \
      LODESTONE_NULL(const char *))                                                                                    \
    X(const char *, iio_channel_get_attr, (const struct iio_channel *c, unsigned int i), (c, i),                       \
      LODESTONE_NULL(const char *))                                                                                    \
    X(unsigned int, iio_channel_get_attrs_count, (const struct iio_channel *c), (c), 0)                                \
    X(const struct iio_data_format *, iio_channel_get_data_format, (const struct iio_channel *c), (c),                 \
      LODESTONE_NULL(const struct iio_data_format *))                                                                  \
    X(const char *, iio_channel_get_id, (const struct iio_channel *c), (c), LODESTONE_NULL(const char *))              \
    X(long, iio_channel_get_index, (const struct iio_channel *c), (c), -ELIBACC)                                       \
    X(const char *, iio_channel_get_name, (const struct iio_channel *c), (c), LODESTONE_NULL(const char *))            \
    X(bool, iio_channel_is_output, (const struct iio_channel *c), (c), false)                                          \
    X(bool, iio_channel_is_scan_element, (const struct iio_channel *c), (c), false)                                    \
    XV(iio_context_destroy, (struct iio_context * x), (x))                                                             \
    X(struct iio_device *, iio_context_find_device, (const struct iio_context *x, const char *name), (x, name),        \
      LODESTONE_NULL(struct iio_device *))                                                                             \
    X(const char *, iio_context_get_attr_value, (const struct iio_context *x, const char *name), (x, name),            \
      LODESTONE_NULL(const char *))                                                                                    \
    X(struct iio_device *, iio_context_get_device, (const struct iio_context *x, unsigned int i), (x, i),              \
      LODESTONE_NULL(struct iio_device *))                                                                             \
    X(unsigned int, iio_context_get_devices_count, (const struct iio_context *x), (x), 0)                              \
    X(int, iio_context_set_timeout, (struct iio_context * x, unsigned int ms), (x, ms), -ELIBACC)                      \
    X(struct iio_context *, iio_create_context_from_uri, (const char *uri), (uri),                                    \
      LODESTONE_NULL(struct iio_context *))                                                                            \
    X(struct iio_context *, iio_create_local_context, (void), (), LODESTONE_NULL(struct iio_context *))                \
    X(struct iio_context *, iio_create_network_context, (const char *host), (host),                                    \
      LODESTONE_NULL(struct iio_context *))                                                                            \
    X(ssize_t, iio_device_attr_read, (const struct iio_device *d, const char *a, char *dst, size_t n), (d, a, dst, n), \
      -ELIBACC)                                                                                                        \
    X(int, iio_device_attr_read_double, (const struct iio_device *d, const char *a, double *v), (d, a, v), -ELIBACC)   \
    X(ssize_t, iio_device_attr_write, (const struct iio_device *d, const char *a, const char *src), (d, a, src),       \
      -ELIBACC)                                                                                                        \
    X(struct iio_buffer *, iio_device_create_buffer, (const struct iio_device *d, size_t samples, bool cyclic),        \
      (d, samples, cyclic), LODESTONE_NULL(struct iio_buffer *))                                                       \
    X(const char *, iio_device_find_attr, (const struct iio_device *d, const char *name), (d, name),                   \
      LODESTONE_NULL(const char *))                                                                                    \
    X(struct iio_channel *, iio_device_find_channel, (const struct iio_device *d, const char *name, bool output),      \
      (d, name, output), LODESTONE_NULL(struct iio_channel *))                                                         \
    X(const char *, iio_device_get_attr, (const struct iio_device *d, unsigned int i), (d, i),                         \
      LODESTONE_NULL(const char *))                                                                                    \
    X(unsigned int, iio_device_get_attrs_count, (const struct iio_device *d), (d), 0)                                  \
    X(const char *, iio_device_get_buffer_attr, (const struct iio_device *d, unsigned int i), (d, i),                  \
      LODESTONE_NULL(const char *))                                                                                    \
    X(unsigned int, iio_device_get_buffer_attrs_count, (const struct iio_device *d), (d), 0)                           \
    X(struct iio_channel *, iio_device_get_channel, (const struct iio_device *d, unsigned int i), (d, i),              \
      LODESTONE_NULL(struct iio_channel *))                                                                            \
    X(unsigned int, iio_device_get_channels_count, (const struct iio_device *d), (d), 0)                               \
    X(const char *, iio_device_get_id, (const struct iio_device *d), (d), LODESTONE_NULL(const char *))                \
    X(const char *, iio_device_get_label, (const struct iio_device *d), (d), LODESTONE_NULL(const char *))             \
    X(const char *, iio_device_get_name, (const struct iio_device *d), (d), LODESTONE_NULL(const char *))              \
    X(bool, iio_device_is_trigger, (const struct iio_device *d), (d), false)                                           \
    X(int, iio_device_set_trigger, (const struct iio_device *d, const struct iio_device *t), (d, t), -ELIBACC)

#define LODESTONE_SLOT(type, name, parameters, arguments, failure) type(*name) parameters;
#define LODESTONE_SLOT_VOID(name, parameters, arguments) void(*name) parameters;
static struct {
    LODESTONE_IIO_FUNCTIONS(LODESTONE_SLOT, LODESTONE_SLOT_VOID)
} functions;
static int loaded;
static char unavailable[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *library = dlopen("libiio.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(unavailable, sizeof unavailable, "the IIO backend needs libiio0: sudo apt install libiio0 (%s)",
                 dlerror());
        return;
    }
    const char *missing = 0;
#define LODESTONE_RESOLVE(type, name, parameters, arguments, failure)                                                  \
    if (!(*(void **)&functions.name = dlsym(library, #name)) && !missing) missing = #name;
#define LODESTONE_RESOLVE_VOID(name, parameters, arguments) LODESTONE_RESOLVE(void, name, parameters, arguments, )
    LODESTONE_IIO_FUNCTIONS(LODESTONE_RESOLVE, LODESTONE_RESOLVE_VOID)
    if (missing) {
        snprintf(unavailable, sizeof unavailable,
                 "libiio.so.0 has no %s: the IIO backend needs libiio0 0.24 or newer", missing);
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
LODESTONE_IIO_FUNCTIONS(LODESTONE_DEFINE, LODESTONE_DEFINE_VOID)

const char *lodestone_iio_unavailable(void) { return ready() ? 0 : unavailable; }
