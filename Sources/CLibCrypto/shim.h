#ifndef YOULL_CLIBCRYPTO_SHIM_H
#define YOULL_CLIBCRYPTO_SHIM_H
// OpenSSL's libcrypto (Debian: libssl-dev), the library libmosquitto already loads into the
// gateway. TuyaWire uses it for AES contexts and HMAC states keyed once per key and reused
// for every frame (the LAN session ciphers, and AES-CBC under a BLE session key), which
// swift-crypto's one-shot API cannot do (it expands the key schedule, and for GCM the GHASH
// tables, on every call); and for AES-ECB keyed per call.
//
// The helpers below chain the EVP calls of one frame so that Swift makes one call per frame.
// Each returns 1 on success and 0 on any failure, after clearing OpenSSL's error queue for
// this thread (libmosquitto reads that queue after its own TLS calls); only the `_new`
// functions allocate.
// Before any OpenSSL header: the HMAC below uses the SHA-256 functions OpenSSL 3 marks
// deprecated (see youll_hmac_sha256_key).
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/sha.h>
#include <stddef.h>
#include <stdint.h>

/// AES-128-ECB over `length` bytes (whole blocks) with a context keyed for one direction
/// with padding off. `out` may be `in` (in place).
static inline int youll_ecb(EVP_CIPHER_CTX *ctx, uint8_t *out, const uint8_t *in, int length) {
    int written = 0;
    if (EVP_CipherUpdate(ctx, out, &written, in, length) == 1 && written == length) return 1;
    ERR_clear_error();
    return 0;
}

/// AES-128-CBC over `length` bytes (whole blocks) with a context keyed for one direction
/// with padding off: the IV is set first, so nothing chains over from the call before.
/// `out` may be `in`.
static inline int youll_cbc(EVP_CIPHER_CTX *ctx, const uint8_t *iv, uint8_t *out, const uint8_t *in, int length) {
    int written = 0;
    if (EVP_CipherInit_ex(ctx, NULL, NULL, NULL, iv, -1) == 1
        && EVP_CipherUpdate(ctx, out, &written, in, length) == 1 && written == length)
        return 1;
    ERR_clear_error();
    return 0;
}

/// Reads (`set` 0) or sets (`set` 1) the 16-byte GCM tag as a parameter: what
/// EVP_CIPHER_CTX_ctrl does, without translating the control code into parameters first.
/// A cipher from an engine (an openssl.cnf that makes, say, afalg the default for AES-GCM)
/// has no parameters: then the control code is used after all.
static inline int youll_gcm_tag(EVP_CIPHER_CTX *ctx, uint8_t *tag, int set) {
    OSSL_PARAM params[2] = {
        OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag, 16),
        OSSL_PARAM_construct_end(),
    };
    if ((set ? EVP_CIPHER_CTX_set_params(ctx, params) : EVP_CIPHER_CTX_get_params(ctx, params)) == 1) return 1;
    ERR_clear_error();
    return EVP_CIPHER_CTX_ctrl(ctx, set ? EVP_CTRL_GCM_SET_TAG : EVP_CTRL_GCM_GET_TAG, 16, tag) == 1;
}

/// AES-128-GCM with a 12-byte nonce: authenticates `aad`, encrypts `length` bytes from `in`
/// to `out` (which may be `in`) and writes the 16-byte tag. `ctx` was keyed once for
/// encryption.
static inline int youll_gcm_seal(EVP_CIPHER_CTX *ctx, const uint8_t *nonce, const uint8_t *aad, int aadLength,
                                 const uint8_t *in, uint8_t *out, int length, uint8_t *tag) {
    uint8_t tail[16];
    int written = 0;
    if (EVP_EncryptInit_ex(ctx, NULL, NULL, NULL, nonce) == 1
        && (aadLength == 0 || EVP_EncryptUpdate(ctx, NULL, &written, aad, aadLength) == 1)
        && (length == 0 || (EVP_EncryptUpdate(ctx, out, &written, in, length) == 1 && written == length))
        && EVP_EncryptFinal_ex(ctx, tail, &written) == 1 && written == 0
        && youll_gcm_tag(ctx, tag, 0) == 1)
        return 1;
    ERR_clear_error();
    return 0;
}

/// Opens what `youll_gcm_seal` made: decrypts `length` bytes from `in` to `out` and returns
/// 1 only when the tag verifies. On 0 the bytes written to `out` are not plaintext and must
/// be thrown away.
static inline int youll_gcm_open(EVP_CIPHER_CTX *ctx, const uint8_t *nonce, const uint8_t *aad, int aadLength,
                                 const uint8_t *in, uint8_t *out, int length, const uint8_t *tag) {
    uint8_t tail[16];
    uint8_t expected[16];
    int written = 0;
    for (int index = 0; index < 16; index++) expected[index] = tag[index];
    if (EVP_DecryptInit_ex(ctx, NULL, NULL, NULL, nonce) == 1
        && (aadLength == 0 || EVP_DecryptUpdate(ctx, NULL, &written, aad, aadLength) == 1)
        && (length == 0 || (EVP_DecryptUpdate(ctx, out, &written, in, length) == 1 && written == length))
        && youll_gcm_tag(ctx, expected, 1) == 1
        && EVP_DecryptFinal_ex(ctx, tail, &written) == 1 && written == 0)
        return 1;
    ERR_clear_error();
    return 0;
}

/// HMAC-SHA256 (RFC 2104) under one key: two SHA-256 states that have absorbed the key's
/// inner and outer pads, copied for every frame. OpenSSL 3's EVP_MAC would do the same
/// through two provider context duplications (two allocations) per frame, at about twice
/// the cost; SHA256_Init/Update/Final are deprecated in OpenSSL 3 for that reason only
/// (they bypass providers), hence OPENSSL_SUPPRESS_DEPRECATED above.
typedef struct youll_hmac_sha256_key {
    SHA256_CTX inner;
    SHA256_CTX outer;
} youll_hmac_sha256_key;

/// Frees a key made by `youll_hmac_sha256_new`, wiping it first. NULL is ignored.
static inline void youll_hmac_sha256_free(youll_hmac_sha256_key *key) {
    if (key != NULL) OPENSSL_clear_free(key, sizeof *key);
}

/// The padded states for `key` (at most one SHA-256 block; Tuya's keys are 16 bytes), or NULL.
static inline youll_hmac_sha256_key *youll_hmac_sha256_new(const uint8_t *key, size_t keyLength) {
    if (keyLength > 64) return NULL;
    youll_hmac_sha256_key *made = OPENSSL_zalloc(sizeof *made);
    if (made == NULL) return NULL;
    uint8_t inner[64];
    uint8_t outer[64];
    for (size_t index = 0; index < 64; index++) {
        uint8_t byte = index < keyLength ? key[index] : 0;
        inner[index] = byte ^ 0x36;
        outer[index] = byte ^ 0x5c;
    }
    int done = SHA256_Init(&made->inner) == 1 && SHA256_Update(&made->inner, inner, 64) == 1
        && SHA256_Init(&made->outer) == 1 && SHA256_Update(&made->outer, outer, 64) == 1;
    OPENSSL_cleanse(inner, sizeof inner);
    OPENSSL_cleanse(outer, sizeof outer);
    if (done) return made;
    youll_hmac_sha256_free(made);
    ERR_clear_error();
    return NULL;
}

/// The 32-byte HMAC of `data` under `key`. The key is only read.
static inline int youll_hmac_sha256(const youll_hmac_sha256_key *key, const uint8_t *data, size_t length,
                                    uint8_t *mac) {
    SHA256_CTX work = key->inner;
    int done = SHA256_Update(&work, data, length) == 1 && SHA256_Final(mac, &work) == 1;
    work = key->outer;
    done = done && SHA256_Update(&work, mac, 32) == 1 && SHA256_Final(mac, &work) == 1;
    OPENSSL_cleanse(&work, sizeof work);
    if (done) return 1;
    ERR_clear_error();
    return 0;
}

#endif
