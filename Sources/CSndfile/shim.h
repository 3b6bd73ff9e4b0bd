#ifndef SOMNIQ_CSNDFILE_SHIM_H
#define SOMNIQ_CSNDFILE_SHIM_H

#include <sndfile.h>
#include <string.h>

/// Copies the broadcast-WAV origination date and time ("yyyy-mm-dd", "hh:mm:ss") into `out`
/// as "yyyy-mm-ddThh:mm:ss". Returns 1 when the file carries a non-empty one, else 0.
/// SF_BROADCAST_INFO's fixed char arrays import into Swift as unwieldy tuples, hence this shim.
static inline int somniq_sf_broadcast_origination(SNDFILE *file, char *out, int outSize) {
    SF_BROADCAST_INFO info;
    memset(&info, 0, sizeof info);
    if (outSize < 20) return 0;
    if (sf_command(file, SFC_GET_BROADCAST_INFO, &info, sizeof info) != SF_TRUE) return 0;
    if (info.origination_date[0] == '\0') return 0;
    memcpy(out, info.origination_date, 10);
    out[10] = 'T';
    memcpy(out + 11, info.origination_time, 8);
    out[19] = '\0';
    return 1;
}

#endif
