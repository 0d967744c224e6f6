#ifndef SHUFFLEBOARD_CPOSTGRES_SHIM_H
#define SHUFFLEBOARD_CPOSTGRES_SHIM_H

#include <libpq-fe.h>

/* PG_DIAG_SQLSTATE and PG_DIAG_MESSAGE_PRIMARY are character-literal macros ('C', 'M'), which
 * Swift does not import; PQresultErrorField takes them as an int. */
static inline int shuffleboard_pg_diag_sqlstate(void) {
    return PG_DIAG_SQLSTATE;
}

static inline int shuffleboard_pg_diag_message_primary(void) {
    return PG_DIAG_MESSAGE_PRIMARY;
}

/* libpq prints NOTICE and WARNING messages from the server (such as "relation already exists,
 * skipping") to stderr by default; a store reports through its errors instead. A C function, so
 * that Swift needs no @convention(c) closure to install it. */
static inline void shuffleboard_pg_ignore_notice(void *arg, const char *message) {
    (void)arg;
    (void)message;
}

static inline void shuffleboard_pg_silence_notices(PGconn *conn) {
    PQsetNoticeProcessor(conn, shuffleboard_pg_ignore_notice, NULL);
}

#endif
