/* spaces/space.h: a search space: the GPU counts and, per plan dimension
 * (spaces/dims.h), the values a search may give it. */
#ifndef SPACE_SPACE_H
#define SPACE_SPACE_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spaces/dims.h"

#define SPACE_MAX_VALUES 64

struct space_list {             /* allowed values of one dimension */
    int n;                      /* 0: "auto", every value that can be valid */
    int32_t v[SPACE_MAX_VALUES];
};

struct space {
    char gpus[256];             /* "64..1024", "8..16384:8", "64,128" */
    union {                     /* by table row, or by name */
        struct space_list dim[PLAN_DIM_COUNT];
        struct { struct space_list tp, cp, pp, dp, mbs, vpp, pp_first, pp_last,
                         sp, tpo, recompute, recompute_layers, zero, overlap,
                         replicas; };
    };
    bool tp_cross_node;
};

static_assert(offsetof(struct space, zero) ==
              offsetof(struct space, dim) + PLAN_DIM_ZERO * sizeof(struct space_list) &&
              offsetof(struct space, overlap) ==
              offsetof(struct space, dim) + PLAN_DIM_OVERLAP * sizeof(struct space_list) &&
              offsetof(struct space, sp) ==
              offsetof(struct space, dim) + PLAN_DIM_SP * sizeof(struct space_list),
              "the named lists follow enum plan_dim");

#endif /* SPACE_SPACE_H */
