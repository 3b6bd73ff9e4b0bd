#include "vector_math.h"

#if defined(__SSE__)
#include <xmmintrin.h>

void somniq_square_roots(const float *x, float *y, long n) {
    long i = 0;
    for (; i + 4 <= n; i += 4) _mm_storeu_ps(y + i, _mm_sqrt_ps(_mm_loadu_ps(x + i)));
    for (; i < n; i++) _mm_store_ss(y + i, _mm_sqrt_ss(_mm_load_ss(x + i)));
}

long somniq_first_maximum(const float *x, long n) {
    long i = 0;
    float largest = x[0];
    if (n >= 8) {
        __m128 low = _mm_loadu_ps(x), high = _mm_loadu_ps(x + 4);
        for (i = 8; i + 8 <= n; i += 8) {
            low = _mm_max_ps(low, _mm_loadu_ps(x + i));
            high = _mm_max_ps(high, _mm_loadu_ps(x + i + 4));
        }
        float lanes[4];
        _mm_storeu_ps(lanes, _mm_max_ps(low, high));
        for (int lane = 0; lane < 4; lane++) if (lanes[lane] > largest) largest = lanes[lane];
    }
    for (; i < n; i++) if (x[i] > largest) largest = x[i];
    long first = 0;
    __m128 wanted = _mm_set1_ps(largest);
    while (first + 4 <= n && _mm_movemask_ps(_mm_cmpeq_ps(_mm_loadu_ps(x + first), wanted)) == 0) first += 4;
    while (first < n - 1 && x[first] != largest) first++;
    return first;
}

#else
#include <math.h>

void somniq_square_roots(const float *x, float *y, long n) {
    for (long i = 0; i < n; i++) y[i] = sqrtf(x[i]);
}

long somniq_first_maximum(const float *x, long n) {
    long first = 0;
    for (long i = 1; i < n; i++) if (x[i] > x[first]) first = i;
    return first;
}

#endif
