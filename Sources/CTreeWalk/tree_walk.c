#include "tree_walk.h"

#if defined(__x86_64__)
#include <immintrin.h>

int somniq_trees_score8_available(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
}

/* Every test of a tree is made for the eight windows at once, level by level, each lane keeping the test on its own
   path; the lane's leaf is then picked by a permutation of the tree's (at most eight) leaves. A comparison that does
   not hold for NaN (_CMP_LT_OQ) is Swift's `<`; adds only, so no multiplication is fused into them. */
__attribute__((target("avx2")))
void somniq_trees_score8(const somniq_tree_test *tests, const float *leaves, int tree_count, int depth,
                         const float *values, float base, float *scores) {
    const int test_count = (1 << depth) - 1, leaf_count = 1 << depth;
    __m256 score = _mm256_set1_ps(base);
    for (int tree = 0; tree < tree_count; tree++) {
        const somniq_tree_test *tree_tests = tests + tree * test_count;
        __m256i index = _mm256_setzero_si256();
        int level_start = 0;
        for (int level = 0; level < depth; level++) {
            __m256i below = _mm256_setzero_si256();
            for (int node = level_start; node < level_start + (1 << level); node++) {
                const somniq_tree_test test = tree_tests[node];
                const __m256 feature = _mm256_loadu_ps(values + 8 * (int)test.feature);
                const __m256 less = _mm256_cmp_ps(feature, _mm256_set1_ps(test.threshold), _CMP_LT_OQ);
                const __m256 missing = _mm256_and_ps(_mm256_cmp_ps(feature, feature, _CMP_UNORD_Q),
                                                     _mm256_castsi256_ps(_mm256_set1_epi32(-(int)test.missing_below)));
                const __m256i goes = _mm256_castps_si256(_mm256_or_ps(less, missing));
                below = _mm256_or_si256(below, _mm256_and_si256(goes, _mm256_cmpeq_epi32(index, _mm256_set1_epi32(node))));
            }
            /* 2i + 2 going above, 2i + 1 below (`below` is -1 there). */
            index = _mm256_add_epi32(_mm256_add_epi32(_mm256_add_epi32(index, index), _mm256_set1_epi32(2)), below);
            level_start = 2 * level_start + 1;
        }
        const __m256i leaf = _mm256_sub_epi32(index, _mm256_set1_epi32(test_count));
        score = _mm256_add_ps(score, _mm256_permutevar8x32_ps(_mm256_loadu_ps(leaves + tree * leaf_count), leaf));
    }
    _mm256_storeu_ps(scores, score);
}

#else

int somniq_trees_score8_available(void) { return 0; }

/* Elsewhere the walk one window at a time in Swift is as fast; this is the same sum, lane by lane. */
void somniq_trees_score8(const somniq_tree_test *tests, const float *leaves, int tree_count, int depth,
                         const float *values, float base, float *scores) {
    const int test_count = (1 << depth) - 1, leaf_count = 1 << depth;
    for (int lane = 0; lane < 8; lane++) {
        float score = base;
        for (int tree = 0; tree < tree_count; tree++) {
            int index = 0;
            for (int level = 0; level < depth; level++) {
                const somniq_tree_test test = tests[tree * test_count + index];
                const float value = values[8 * (int)test.feature + lane];
                const int below = (value < test.threshold) | ((value != value) & test.missing_below);
                index = 2 * index + 2 - below;
            }
            score += leaves[tree * leaf_count + index - test_count];
        }
        scores[lane] = score;
    }
}

#endif
