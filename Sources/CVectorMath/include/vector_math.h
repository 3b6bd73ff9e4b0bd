#ifndef SOMNIQ_VECTOR_MATH_H
#define SOMNIQ_VECTOR_MATH_H

/* y[i] = the square root of x[i] for i < n: each correctly rounded (IEEE 754), as sqrtf gives it, four at a time.
   Swift's SIMD square root is taken lane by lane, each behind a check for a negative input (which would set errno),
   eight times the instructions; compiling Swift without that check (-fno-math-errno) also lets the compiler rewrite
   other libm calls, which changes features. x and y may be the same array, not otherwise overlap. */
void somniq_square_roots(const float *x, float *y, long n);
/* The index of the first of the largest of x[0..n) (n > 0): the index a plain scan keeping the first strict maximum
   finds, as a maximum is exact in any order; eight values a step (two four-lane maxima). Without a NaN among them; with one, some index in
   [0, n). (Swift's SIMD pointwiseMax is a generic call per step where it is not inlined, slower than the scan.) */
long somniq_first_maximum(const float *x, long n);

#endif
