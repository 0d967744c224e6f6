#ifndef SHUFFLEBOARD_CCURL_SHIM_H
#define SHUFFLEBOARD_CCURL_SHIM_H

#include <curl/curl.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed
 * wrapper per kind of argument. */
static inline CURLcode shuffleboard_curl_set_long(CURL *h, CURLoption option, long value) {
    return curl_easy_setopt(h, option, value);
}

static inline CURLcode shuffleboard_curl_set_string(CURL *h, CURLoption option, const char *value) {
    return curl_easy_setopt(h, option, value);
}

static inline CURLcode shuffleboard_curl_set_pointer(CURL *h, CURLoption option, void *value) {
    return curl_easy_setopt(h, option, value);
}

static inline CURLcode shuffleboard_curl_set_opensocket(CURL *h, curl_opensocket_callback callback) {
    return curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, callback);
}

/* The response body is not kept: every byte is taken and dropped (curl would print it to
 * stdout otherwise), so a receiver that answers with a large body costs nothing. */
static inline size_t shuffleboard_curl_discard(char *data, size_t size, size_t count, void *user) {
    (void)data;
    (void)user;
    return size * count;
}

static inline CURLcode shuffleboard_curl_discard_body(CURL *h) {
    return curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, shuffleboard_curl_discard);
}

static inline CURLcode shuffleboard_curl_response_code(CURL *h, long *code) {
    return curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, code);
}

static inline CURLcode shuffleboard_curl_primary_ip(CURL *h, char **ip) {
    return curl_easy_getinfo(h, CURLINFO_PRIMARY_IP, ip);
}

/* The address curl is about to connect to (CURLOPT_OPENSOCKETFUNCTION's): its 4 (IPv4) or 16
 * (IPv6) bytes copied to `out`; returns how many, or 0 for another family. The sockaddr is
 * read here because its size depends on its family, and curl_sockaddr declares only the
 * smallest. */
static inline int shuffleboard_curl_address(const struct curl_sockaddr *a, unsigned char out[16]) {
    if (a->family == AF_INET && a->addrlen >= sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)&a->addr;
        memcpy(out, &in->sin_addr, 4);
        return 4;
    }
    if (a->family == AF_INET6 && a->addrlen >= sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&a->addr;
        memcpy(out, &in6->sin6_addr, 16);
        return 16;
    }
    return 0;
}

static inline CURLcode shuffleboard_curl_message_result(const CURLMsg *message) {
    return message->data.result;
}

#endif
