/* libsqlite3, loaded when first used (issue 19: a small footprint). Each function Lodestone calls is defined here
 * under SQLite's own name, so the Swift code calls it as before; the first call dlopen()s libsqlite3.so.0 and looks up
 * every function below once. A process that never opens a store never maps the library.
 *
 * Without the library (or with one lacking a function), every call fails the way SQLite reports failure:
 * sqlite3_open_v2 returns SQLITE_CANTOPEN with no handle, sqlite3_errstr and sqlite3_errmsg return the one-line
 * reason naming the Debian package, so StoreError carries it. The list must name every sqlite3_ function a Swift
 * target calls: a missing one is an undefined symbol at link time. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "shim.h"

/* X(return type, name, parameters, arguments, what the call returns without the library) */
#define LODESTONE_SQLITE_FUNCTIONS(X, XV)                                                                              \
    X(int, sqlite3_bind_double, (sqlite3_stmt * s, int i, double v), (s, i, v), SQLITE_ERROR)                          \
    X(int, sqlite3_bind_int64, (sqlite3_stmt * s, int i, sqlite3_int64 v), (s, i, v), SQLITE_ERROR)                    \
    X(int, sqlite3_bind_null, (sqlite3_stmt * s, int i), (s, i), SQLITE_ERROR)                                         \
    X(int, sqlite3_bind_text, (sqlite3_stmt * s, int i, const char *v, int n, void (*d)(void *)), (s, i, v, n, d),    \
      SQLITE_ERROR)                                                                                                    \
    X(int, sqlite3_busy_timeout, (sqlite3 * db, int ms), (db, ms), SQLITE_ERROR)                                       \
    X(int, sqlite3_changes, (sqlite3 * db), (db), 0)                                                                   \
    X(int, sqlite3_clear_bindings, (sqlite3_stmt * s), (s), SQLITE_ERROR)                                              \
    X(int, sqlite3_close_v2, (sqlite3 * db), (db), SQLITE_OK)                                                          \
    X(int, sqlite3_column_count, (sqlite3_stmt * s), (s), 0)                                                           \
    X(double, sqlite3_column_double, (sqlite3_stmt * s, int i), (s, i), 0)                                             \
    X(sqlite3_int64, sqlite3_column_int64, (sqlite3_stmt * s, int i), (s, i), 0)                                       \
    X(const unsigned char *, sqlite3_column_text, (sqlite3_stmt * s, int i), (s, i), 0)                                \
    X(int, sqlite3_column_type, (sqlite3_stmt * s, int i), (s, i), SQLITE_NULL)                                        \
    X(const char *, sqlite3_errmsg, (sqlite3 * db), (db), unavailable)                                                 \
    X(const char *, sqlite3_errstr, (int rc), (rc), unavailable)                                                       \
    X(int, sqlite3_exec, (sqlite3 * db, const char *sql, int (*cb)(void *, int, char **, char **), void *a, char **e), \
      (db, sql, cb, a, e), SQLITE_ERROR)                                                                               \
    X(int, sqlite3_extended_result_codes, (sqlite3 * db, int on), (db, on), SQLITE_ERROR)                              \
    X(int, sqlite3_finalize, (sqlite3_stmt * s), (s), SQLITE_OK)                                                       \
    X(int, sqlite3_get_autocommit, (sqlite3 * db), (db), 1)                                                            \
    X(int, sqlite3_open_v2, (const char *path, sqlite3 **db, int flags, const char *vfs), (path, db, flags, vfs),      \
      (*db = 0, SQLITE_CANTOPEN))                                                                                      \
    X(int, sqlite3_prepare_v3,                                                                                         \
      (sqlite3 * db, const char *sql, int n, unsigned int f, sqlite3_stmt **s, const char **tail),                     \
      (db, sql, n, f, s, tail), (*s = 0, SQLITE_ERROR))                                                                \
    X(int, sqlite3_reset, (sqlite3_stmt * s), (s), SQLITE_ERROR)                                                       \
    X(int, sqlite3_step, (sqlite3_stmt * s), (s), SQLITE_ERROR)                                                        \
    XV(sqlite3_free, (void *p), (p))

#define LODESTONE_SLOT(type, name, parameters, arguments, failure) type(*name) parameters;
#define LODESTONE_SLOT_VOID(name, parameters, arguments) void(*name) parameters;
static struct {
    LODESTONE_SQLITE_FUNCTIONS(LODESTONE_SLOT, LODESTONE_SLOT_VOID)
} functions;
static int loaded;
static char unavailable[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *library = dlopen("libsqlite3.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(unavailable, sizeof unavailable,
                 "the SQLite store needs libsqlite3-0: sudo apt install libsqlite3-0 (%s)", dlerror());
        return;
    }
    const char *missing = 0;
#define LODESTONE_RESOLVE(type, name, parameters, arguments, failure)                                                  \
    if (!(*(void **)&functions.name = dlsym(library, #name)) && !missing) missing = #name;
#define LODESTONE_RESOLVE_VOID(name, parameters, arguments) LODESTONE_RESOLVE(void, name, parameters, arguments, )
    LODESTONE_SQLITE_FUNCTIONS(LODESTONE_RESOLVE, LODESTONE_RESOLVE_VOID)
    if (missing) {
        snprintf(unavailable, sizeof unavailable,
                 "libsqlite3.so.0 has no %s: the SQLite store needs libsqlite3-0 3.20 or newer", missing);
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
LODESTONE_SQLITE_FUNCTIONS(LODESTONE_DEFINE, LODESTONE_DEFINE_VOID)
