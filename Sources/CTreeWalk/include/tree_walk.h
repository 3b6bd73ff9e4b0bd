#ifndef SOMNIQ_TREE_WALK_H
#define SOMNIQ_TREE_WALK_H

#include <stdint.h>

/// One test of a boosted tree laid out flat (CompiledPointsScore): `feature < threshold` goes below; a missing
/// (NaN) feature goes below when `missing_below` is 1.
typedef struct {
    float threshold;
    uint16_t feature;
    uint8_t missing_below;
    uint8_t padding;
} somniq_tree_test;

/// Whether `somniq_trees_score8` can run on this processor (x86-64 with AVX2).
int somniq_trees_score8_available(void);

/// The points of `tree_count` complete trees of depth `depth` (1 to 3), each `2^depth - 1` tests in heap order and
/// `2^depth` leaves, summed in tree order onto `base` for eight windows at once: feature f of window w at
/// `values[8 f + w]`. `leaves` must be readable 8 floats past its last tree's first leaf. Lane w of `scores` is bit for
/// bit the tree-by-tree sum for window w.
void somniq_trees_score8(const somniq_tree_test *tests, const float *leaves, int tree_count, int depth,
                         const float *values, float base, float *scores);

#endif
