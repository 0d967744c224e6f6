#ifndef SHUFFLEBOARD_CLIBWEBSOCKETS_SHIM_H
#define SHUFFLEBOARD_CLIBWEBSOCKETS_SHIM_H

#include <libwebsockets.h>
#include <string.h>
/* TCP_INFO and glibc's struct tcp_info (shuffleboard_tcp_bytes_received). */
#include <netinet/tcp.h>
/* Swift's Glibc module leaves sys/timerfd.h out; the hover pacer's timer is a timerfd that lws
 * polls with the sockets (Pacer.swift). */
#include <sys/timerfd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#include <sys/prctl.h>
#endif

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

/* lws 4.1.6 never checks that a client's frames are masked (RFC 6455 5.1 says the server must
 * close the connection; lws 5 does), and no public call says whether the frame being delivered
 * was. lws keeps that bit in its private per-connection struct _lws_websocket_related
 * (lib/roles/ws/private-lib-roles-ws.h at v4.1.6), in the bit-fields that follow the
 * close/ping payload buffer, whose address lws_get_close_payload() returns:
 *
 *     uint8_t ping_payload_buf[128 - 3 + LWS_PRE];
 *     unsigned int final:1, frame_is_binary:1, all_zero_nonce:1, this_frame_masked:1, ...
 *
 * The mirror below lets the compiler lay those bit-fields out as it did for lws (the buffer sits
 * at a pointer-aligned offset there, as at offset 0 here). The bits are read only when the
 * headers are 4.1's, and only trusted when they agree with what lws says in public: the
 * frame_is_binary bit must match lws_frame_is_binary(), and an unmasked frame must also have
 * all_zero_nonce set (lws sets it for every frame and clears it on a non-zero mask byte).
 * Returns 1 for a masked frame, 0 for an unmasked one, -1 when the layout cannot be trusted. */
struct shuffleboard_lws_ws_tail {
    uint8_t ping_payload_buf[128 - 3 + LWS_PRE];
    unsigned int final : 1;
    unsigned int frame_is_binary : 1;
    unsigned int all_zero_nonce : 1;
    unsigned int this_frame_masked : 1;
};

static inline int shuffleboard_frame_is_masked(struct lws *wsi) {
#if LWS_LIBRARY_VERSION_MAJOR == 4 && LWS_LIBRARY_VERSION_MINOR == 1
    struct shuffleboard_lws_ws_tail tail;
    const unsigned char *start = lws_get_close_payload(wsi) - LWS_PRE;
    memcpy(&tail, start, sizeof tail);
    if (tail.frame_is_binary != (lws_frame_is_binary(wsi) ? 1u : 0u))
        return -1;
    if (tail.this_frame_masked)
        return 1;
    return tail.all_zero_nonce ? 0 : -1;
#else
    (void)wsi;
    return -1;
#endif
}

/* Names the calling thread for the kernel (top -H, /proc/PID/task/TID/comm; at most 15 bytes
 * are kept). prctl is variadic, which Swift does not import, and Foundation's Thread.name is not
 * passed on to the kernel on Linux. */
static inline void shuffleboard_name_thread(const char *name) {
#if defined(__GLIBC__)
    prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
#else
    (void)name;
#endif
}

/* glibc's malloc_trim, from <malloc.h>, which Swift's Glibc module does not import: returns the
 * whole free pages of every malloc arena to the kernel. After a burst of connections the
 * service thread's arena is full of freed handshake buffers (lws's header tables, 8 KiB each, a
 * few hundred at once) between the connections' long-lived allocations; glibc only gives back
 * the free space at the top of an arena on its own. Returns 1 when memory was released. */
static inline int shuffleboard_trim_heap(void) {
#if defined(__GLIBC__)
    return malloc_trim(0);
#else
    return 0;
#endif
}

/* The bytes the kernel has received on a TCP socket since it was accepted, whether or not lws
 * has read them (-1: unknown). Says whether a connection sent anything at all: lws reads a
 * request into its header buffer with no callback until the headers are complete, and a TLS
 * handshake with none until it is done. Linux's tcpi_bytes_received (since 4.1) follows the
 * fields glibc's struct tcp_info declares (it stops at tcpi_total_retrans): the kernel's struct
 * (linux/tcp.h, which cannot be included with netinet/tcp.h) goes on with tcpi_pacing_rate,
 * tcpi_max_pacing_rate, tcpi_bytes_acked, tcpi_bytes_received, all 64 bits, at offset 104. An
 * older kernel fills fewer bytes, and then the answer is -1. */
static inline long long shuffleboard_tcp_bytes_received(int fd) {
    struct {
        struct tcp_info base;
        uint64_t pacing_rate, max_pacing_rate, bytes_acked, bytes_received;
    } info;
    _Static_assert(sizeof(struct tcp_info) == 104, "glibc's struct tcp_info changed");
    socklen_t length = sizeof(info);
    memset(&info, 0, sizeof(info));
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0 || length < sizeof(info))
        return -1;
    return (long long)info.bytes_received;
}

/* Why a TLS client connection failed when the reason was the server's certificate (the
 * certificate OpenSSL reported, e.g. "unable to get local issuer certificate", "IP address
 * mismatch", "certificate has expired"), or NULL when it verified or there was no TLS yet. For
 * LWS_CALLBACK_CLIENT_CONNECTION_ERROR, whose own text says only "connect SSL err 1": lws
 * reports it before it frees the connection's SSL, where OpenSSL kept the verification's result.
 * Needs OpenSSL itself (libssl, libcrypto: module.modulemap links them), as lws 4.1.6 on Debian
 * is built with it. */
static inline const char *shuffleboard_tls_verify_error(struct lws *wsi) {
#if defined(LWS_WITH_TLS) && !defined(LWS_WITH_MBEDTLS)
    SSL *ssl = lws_get_ssl(wsi);
    if (!ssl)
        return NULL;
    long result = SSL_get_verify_result(ssl);
    return result == X509_V_OK ? NULL : X509_verify_cert_error_string(result);
#else
    (void)wsi;
    return NULL;
#endif
}

/* A TLS listener issues no session tickets (called with its SSL_CTX at lws's
 * LWS_CALLBACK_OPENSSL_LOAD_EXTRA_SERVER_VERIFY_CERTS). OpenSSL sends TLS 1.3 tickets right after
 * the handshake, while the client is already writing its request: a client whose reader thread
 * takes them while another thread writes on the same SSL object (Python's websockets sync client
 * does, and OpenSSL forbids it) can have that write wait for input that never comes, until this
 * server closes the connection for want of a request (lws's 5 s). Without tickets nothing arrives
 * between the handshake and the answer. The cost: no session resumption (each reconnect is a
 * full handshake, about a millisecond of CPU). */
static inline void shuffleboard_tls_no_session_tickets(void *ssl_ctx) {
#if defined(LWS_WITH_TLS) && !defined(LWS_WITH_MBEDTLS)
    if (!ssl_ctx)
        return;
    SSL_CTX_set_options((SSL_CTX *)ssl_ctx, SSL_OP_NO_TICKET);
    SSL_CTX_set_num_tickets((SSL_CTX *)ssl_ctx, 0);
#else
    (void)ssl_ctx;
#endif
}

/* The OpenSSL options a TLS listener sets on its SSL_CTX (lws's ssl_options_set): TLS 1.2 and
 * 1.3 only (no SSLv3, TLS 1.0 or 1.1), no compression (CRIME), no renegotiation, and the server's
 * order of cipher suites (AEAD first), not the client's. The SSL_OP_ values are function-like
 * macros in OpenSSL 3, which Swift does not import. */
static inline long shuffleboard_tls_server_options(void) {
#if defined(LWS_WITH_TLS) && !defined(LWS_WITH_MBEDTLS)
    return (long)(SSL_OP_NO_SSLv3 | SSL_OP_NO_TLSv1 | SSL_OP_NO_TLSv1_1 | SSL_OP_NO_COMPRESSION |
                  SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
#else
    return 0;
#endif
}

#endif
