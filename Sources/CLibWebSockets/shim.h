#ifndef SHUFFLEBOARD_CLIBWEBSOCKETS_SHIM_H
#define SHUFFLEBOARD_CLIBWEBSOCKETS_SHIM_H

#include <libwebsockets.h>

/* LWS_PRE is a macro expression (not a literal), so Swift does not import it.
 * Every buffer passed to lws_write needs this much writable headroom. */
static inline size_t shuffleboard_lws_pre(void) {
    return LWS_PRE;
}

/* LWS_WRITE_RAW is a macro aliasing an enum constant (LWS_WRITE_HTTP), which Swift does not
 * import. Raw writes carry the server's pre-built WebSocket frames. */
static inline enum lws_write_protocol shuffleboard_write_raw(void) {
    return LWS_WRITE_RAW;
}

/* lws_get_vhost_listen_port wants the vhost; lws_get_vhost is fine from Swift
 * but the default vhost lookup by context is a two-step dance worth naming. */
static inline int shuffleboard_listen_port(struct lws_context *context) {
    struct lws_vhost *vh = lws_get_vhost_by_name(context, "default");
    return vh ? lws_get_vhost_listen_port(vh) : -1;
}

/* lws_callback_http_dummy is declared with a prototype Swift imports as a
 * function, but taking its address as a C function pointer for the protocols
 * table is clearer from C. */
static inline lws_callback_function *shuffleboard_http_dummy(void) {
    return lws_callback_http_dummy;
}

/* The permessage-deflate extension table: a C array of structs holding a
 * function pointer and a string literal, terminated by a zeroed entry. It must
 * outlive the context, so it lives here with static storage. */
static inline const struct lws_extension *shuffleboard_deflate_extensions(void) {
    static const struct lws_extension exts[] = {
        { "permessage-deflate", lws_extension_callback_pm_deflate,
          "permessage-deflate; client_max_window_bits" },
        { NULL, NULL, NULL }
    };
    return exts;
}

#endif
