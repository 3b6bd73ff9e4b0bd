#ifndef SOMNIQ_CXXHASH_SHIM_H
#define SOMNIQ_CXXHASH_SHIM_H

// xxHash (Debian's libxxhash-dev): XXH3-128, each recording's content hash.
#include <xxhash.h>

#endif
