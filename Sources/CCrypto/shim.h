#ifndef SHUFFLEBOARD_CCRYPTO_SHIM_H
#define SHUFFLEBOARD_CCRYPTO_SHIM_H

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

/* EVP_sha256() returns a const pointer to a static table; HMAC() takes it as-is. Wrapping the
 * one-shot call keeps the C signature (with its many pointer kinds) out of Swift. Returns 1 on
 * success and writes 32 bytes to `out`. */
static inline int shuffleboard_hmac_sha256(const void *key, int key_length, const unsigned char *data,
                                           size_t data_length, unsigned char out[32]) {
    unsigned int length = 32;
    return HMAC(EVP_sha256(), key, key_length, data, data_length, out, &length) != NULL && length == 32;
}

/* The SHA-256 of `data` (a revoked token's id), for the same reason: EVP_Digest's signature
 * takes an engine and a length pointer Swift need not see. Returns 1 and writes 32 bytes to `out`. */
static inline int shuffleboard_sha256(const unsigned char *data, size_t data_length, unsigned char out[32]) {
    unsigned int length = 32;
    return EVP_Digest(data, data_length, out, &length, EVP_sha256(), NULL) == 1 && length == 32;
}

#endif
