#ifndef MIRROR_BOT_CHIREDIS_SHIM_H
#define MIRROR_BOT_CHIREDIS_SHIM_H

#include <hiredis/hiredis.h>
#include <poll.h>

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

#endif
