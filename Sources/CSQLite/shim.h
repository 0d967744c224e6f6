#ifndef SHUFFLEBOARD_CSQLITE_SHIM_H
#define SHUFFLEBOARD_CSQLITE_SHIM_H

#include <sqlite3.h>

/* SQLITE_TRANSIENT is a cast of -1 to a function pointer; Swift cannot import
 * that macro, so bind calls that need SQLite to copy the bytes use this. */
static inline sqlite3_destructor_type shuffleboard_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

#endif
