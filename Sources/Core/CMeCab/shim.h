#ifndef MIRROR_BOT_CMECAB_SHIM_H
#define MIRROR_BOT_CMECAB_SHIM_H

/* libmecab-dev ships no pkg-config file; its header lives in /usr/include. */
#include <mecab.h>

#endif
