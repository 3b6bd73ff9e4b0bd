#ifndef SOMNIQ_CFFTW_SHIM_H
#define SOMNIQ_CFFTW_SHIM_H

#include <fftw3.h>

#endif
