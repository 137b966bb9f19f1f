#ifndef MIRROR_BOT_CCBOR_SHIM_H
#define MIRROR_BOT_CCBOR_SHIM_H

/* libcbor (Debian's libcbor-dev), imported by ATProtoRepository only: it decodes the DAG-CBOR blocks of a Bluesky
   repository export (a CAR file). */
#include <cbor.h>

#endif
