#ifndef MIRROR_BOT_CHIREDIS_SHIM_H
#define MIRROR_BOT_CHIREDIS_SHIM_H

#include <hiredis/hiredis.h>
#include <poll.h>
#include <dlfcn.h>

/* hiredis' version as plain integers: Swift cannot import macros such as HIREDIS_MAJOR when they are
   defined through other macros on some versions, so they are re-exported as functions. */
static inline int mirror_hiredis_major(void) { return HIREDIS_MAJOR; }
static inline int mirror_hiredis_minor(void) { return HIREDIS_MINOR; }

/* True when the peer has closed the connection (or it failed) while we were idle: in a request/response
   protocol nothing may be readable between commands, so readability means end-of-file or an error. */
static inline int mirror_hiredis_peer_closed(const redisContext *context) {
    struct pollfd descriptor = { .fd = context->fd, .events = POLLIN, .revents = 0 };
    int ready = poll(&descriptor, 1, 0);
    if (ready < 0) return 1;
    if (ready == 0) return 0;
    return (descriptor.revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) != 0;
}

/* TLS lives in libhiredis_ssl (hiredis >= 1.0), which Debian 12's hiredis 0.14 does not have. It is loaded at run time so
   that one binary links everywhere; the option struct mirrors hiredis_ssl.h of hiredis >= 1.1. */
typedef struct {
    const char *cacert_filename;
    const char *capath;
    const char *cert_filename;
    const char *private_key_filename;
    const char *server_name;
    int verify_mode;
} mirror_redis_ssl_options;

typedef void *(*mirror_redis_create_ssl_context_with_options)(mirror_redis_ssl_options *options, int *error);
typedef int (*mirror_redis_initiate_ssl_with_context)(redisContext *context, void *ssl_context);
typedef int (*mirror_redis_init_openssl)(void);

/* Opens hiredis' TLS library and starts TLS on the connection, not verifying the peer (Heroku's Redis uses a
   self-signed certificate). Returns 0 on success, -1 when this system's hiredis has no TLS, -2 when the TLS context
   could not be made, -3 when the handshake failed. */
static inline int mirror_hiredis_start_tls(redisContext *context, const char *server_name) {
    static const char *const names[] = {
        "libhiredis_ssl.so", "libhiredis_ssl.so.1.1.0", "libhiredis_ssl.so.1.3.0", "libhiredis_ssl.so.1.2.0", NULL
    };
    void *library = NULL;
    for (int index = 0; names[index] != NULL && library == NULL; index++) {
        library = dlopen(names[index], RTLD_NOW | RTLD_GLOBAL);
    }
    if (library == NULL) return -1;
    mirror_redis_init_openssl initOpenSSL = (mirror_redis_init_openssl)dlsym(library, "redisInitOpenSSL");
    mirror_redis_create_ssl_context_with_options create =
        (mirror_redis_create_ssl_context_with_options)dlsym(library, "redisCreateSSLContextWithOptions");
    mirror_redis_initiate_ssl_with_context initiate =
        (mirror_redis_initiate_ssl_with_context)dlsym(library, "redisInitiateSSLWithContext");
    if (initOpenSSL == NULL || create == NULL || initiate == NULL) return -1;
    initOpenSSL();
    mirror_redis_ssl_options options = { NULL, NULL, NULL, NULL, server_name, 0 /* REDIS_SSL_VERIFY_NONE */ };
    int error = 0;
    void *sslContext = create(&options, &error);
    if (sslContext == NULL) return -2;
    /* The context is kept for the life of the process: hiredis keeps a reference to it per connection. */
    if (initiate(context, sslContext) != REDIS_OK) return -3;
    return 0;
}

#endif
