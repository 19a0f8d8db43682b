#ifndef LODESTONE_CSQLITE_SHIM_H
#define LODESTONE_CSQLITE_SHIM_H

#include <sqlite3.h>

/* SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import: bound text and blobs
   are copied by SQLite before the bind returns, so the Swift buffer may go away right after. */
static inline sqlite3_destructor_type lodestone_sqlite_transient(void) { return SQLITE_TRANSIENT; }

#endif
