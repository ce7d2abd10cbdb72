#ifndef YOULL_CLIBCRYPTO_SHIM_H
#define YOULL_CLIBCRYPTO_SHIM_H
// OpenSSL's libcrypto (Debian: libssl-dev), the library libmosquitto already loads into the
// gateway. TuyaWire uses it for the LAN session ciphers only: an AES or HMAC context keyed
// once per session key and reused for every frame, which swift-crypto's one-shot API cannot
// do (it expands the key schedule, and for GCM the GHASH tables, on every call).
//
// The helpers below chain the EVP calls of one frame so that Swift makes one call per frame.
// Each returns 1 on success and 0 on any failure, after clearing OpenSSL's error queue for
// this thread (libmosquitto reads that queue after its own TLS calls); none allocates.
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
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
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, tag) == 1)
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
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, 16, expected) == 1
        && EVP_DecryptFinal_ex(ctx, tail, &written) == 1 && written == 0)
        return 1;
    ERR_clear_error();
    return 0;
}

/// A new HMAC-SHA256 context keyed with `key`, or NULL.
static inline EVP_MAC_CTX *youll_hmac_sha256_new(const uint8_t *key, size_t keyLength) {
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    if (mac == NULL) return NULL;
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac);  // the context holds its own reference
    if (ctx == NULL) return NULL;
    char digest[] = "SHA256";
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
        OSSL_PARAM_construct_end(),
    };
    if (EVP_MAC_init(ctx, key, keyLength, params) != 1) {
        EVP_MAC_CTX_free(ctx);
        ERR_clear_error();
        return NULL;
    }
    return ctx;
}

/// The 32-byte HMAC of `data`. With `key` NULL, under the key `ctx` was made with, whose
/// padded states the context keeps, so nothing is keyed again; otherwise keyed with `key`.
static inline int youll_hmac_sha256(EVP_MAC_CTX *ctx, const uint8_t *key, size_t keyLength, const uint8_t *data,
                                    size_t length, uint8_t *mac) {
    size_t written = 0;
    if (EVP_MAC_init(ctx, key, key == NULL ? 0 : keyLength, NULL) == 1 && EVP_MAC_update(ctx, data, length) == 1
        && EVP_MAC_final(ctx, mac, &written, 32) == 1 && written == 32)
        return 1;
    ERR_clear_error();
    return 0;
}

/// Whether a context made by `youll_hmac_sha256_new` starts a fresh MAC when initialised
/// without a key. OpenSSL 3.0.0 to 3.0.2 accept the call but keep the finished state
/// (openssl/openssl#17811, fixed in 3.0.3): there every frame must be keyed again.
static inline int youll_hmac_sha256_reuses_key(EVP_MAC_CTX *ctx, const uint8_t *key, size_t keyLength) {
    static const uint8_t probe[] = {'y', 'o', 'u', 'l', 'l'};
    uint8_t keyed[32];
    uint8_t reused[32];
    if (youll_hmac_sha256(ctx, key, keyLength, probe, sizeof probe, keyed) != 1) return 0;
    if (youll_hmac_sha256(ctx, NULL, 0, probe, sizeof probe, reused) != 1) return 0;
    if (youll_hmac_sha256(ctx, NULL, 0, probe, sizeof probe, keyed) != 1) return 0;
    return CRYPTO_memcmp(keyed, reused, 32) == 0;
}

#endif
