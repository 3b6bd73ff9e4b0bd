#include "vector_math.h"

#if defined(__SSE__)
#include <xmmintrin.h>

void somniq_square_roots(const float *x, float *y, long n) {
    long i = 0;
    for (; i + 4 <= n; i += 4) _mm_storeu_ps(y + i, _mm_sqrt_ps(_mm_loadu_ps(x + i)));
    for (; i < n; i++) _mm_store_ss(y + i, _mm_sqrt_ss(_mm_load_ss(x + i)));
}

#else
#include <math.h>

void somniq_square_roots(const float *x, float *y, long n) {
    for (long i = 0; i < n; i++) y[i] = sqrtf(x[i]);
}

#endif
