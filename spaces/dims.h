/* spaces/dims.h: the dimensions of a plan, as data. One row per dimension
 * says how it is named (scenario field, CLI option, JSON and CSV column),
 * how it appears in a plan's key, which values it may take, how "auto"
 * expands in a search, and whether it changes the per-layer operator times
 * (and so belongs to the search's memo key). The scenario reader, the
 * options of predict/search/export, plan_key, the plan check, the search's
 * decoding and memo key, and the writers' plan columns read this table;
 * adding a dimension is a row here, a field in struct plan and its physics
 * in predictor/ (README.md, "Adding a plan dimension"). */
#ifndef SPACE_DIMS_H
#define SPACE_DIMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* In the order a search enumerates them, slowest first after the GPU count
 * (this order fixes the search's plan index, and so sampled searches). */
enum plan_dim {
    PLAN_DIM_TP, PLAN_DIM_CP, PLAN_DIM_PP, PLAN_DIM_DP, PLAN_DIM_MBS,
    PLAN_DIM_VPP, PLAN_DIM_PP_FIRST, PLAN_DIM_PP_LAST,
    PLAN_DIM_SP, PLAN_DIM_TPO, PLAN_DIM_RECOMPUTE, PLAN_DIM_RC_LAYERS,
    PLAN_DIM_ZERO,
    PLAN_DIM_OVERLAP, PLAN_DIM_REPLICAS, PLAN_DIM_EP, PLAN_DIM_ETP,
    PLAN_DIM_EPO, PLAN_DIM_OFFLOAD, PLAN_DIM_COUNT
};

enum plan_dim_auto {            /* what "auto" (no list) means in a search */
    PLAN_AUTO_DERIVED,          /* not searched: GPUs / the other degrees */
    PLAN_AUTO_HEADS,            /* divisors of the attention heads that fit
                                   the NVLink domain (every GPU with
                                   tp_cross_node) */
    PLAN_AUTO_LAYERS,           /* 1 .. the layers, up to the GPUs: the
                                   stack's split rule decides (layers-pp) */
    PLAN_AUTO_SMALL,            /* 1 .. 8 */
    PLAN_AUTO_ALL,              /* every allowed value, lo .. hi */
    PLAN_AUTO_CP,               /* powers of two whose 2 cp chunks divide
                                   seq, with >= PLAN_CP_MIN_TOKENS tokens per
                                   GPU (predictor/cp.c) */
    PLAN_AUTO_STACK_TPO,        /* off, and on where the stack has TP
                                   communication overlap */
    PLAN_AUTO_DEFAULT,          /* the default only: a search tries others
                                   when they are listed */
    PLAN_AUTO_EXPERTS,          /* divisors of the routed experts (1 for a
                                   dense model) */
    PLAN_AUTO_STACK_EPO,        /* off, and on where the stack overlaps
                                   MoE all-to-alls and the model has
                                   experts */
    PLAN_AUTO_STACK_RC_BLOCK,   /* 0 (every layer), and 1 .. the layers
                                   where the stack has block recompute */
    PLAN_AUTO_STACK_OFFLOAD,    /* off, and on where the stack offloads
                                   optimizer states and the system says
                                   its host link */
    PLAN_AUTO_COUNT
};

/* The fewest tokens per GPU 'auto' gives context parallelism: cp > 1 is
 * searched only for long sequences, as practice uses it. Meta's Llama 3
 * ran 8K-token pre-training without CP and CP 16 only at 131,072 tokens
 * (arXiv 2407.21783, Table 4: 8,192 tokens per GPU); torchtitan's CP
 * benchmarks start at 32K tokens on cp 2 (benchmarks/
 * llama3_h100_202412_torchtitan.md); NeMo's long-sequence recipes keep
 * 16K-32K per GPU. Shorter chunks can still be listed (--cp 2: NeMo
 * 25.02's Llama-3-70B at seq 8192 ran cp 2). */
#define PLAN_CP_MIN_TOKENS 8192

enum plan_dim_role {            /* where a block of the search ends */
    PLAN_ROLE_BLOCK,            /* with the GPU count, one search block */
    PLAN_ROLE_DERIVED,          /* follows from the block */
    PLAN_ROLE_INNER,            /* walked inside a block */
    PLAN_ROLE_CHOICE,           /* not walked: each plan of the search gets
                                   the fastest of its listed values, which
                                   the plan then shows (overlap) */
    PLAN_ROLE_FIT,              /* not walked: each plan gets the listed
                                   value its memory needs (recompute_layers,
                                   with full recompute: the fewest layers
                                   that make it fit, in closed form;
                                   offload: on where the plan fits in no
                                   other way, or where it lets fewer
                                   layers be rebuilt, faster) */
};

struct plan_dim_info {
    const char *name;           /* scenario field, --option, JSON/CSV column */
    const char *key;            /* token in plan_key: "tp" gives "tp8" */
    const char *help;           /* one line for usage texts */
    const char *const *names;   /* value names (NULL: an integer) */
    const char *const *key_names;  /* key token per value ("" leaves it out);
                                      NULL: key + the integer */
    int32_t lo, hi;             /* allowed values */
    int32_t dflt;               /* what a plan that does not say has */
    bool key_omits_default;     /* plan_key leaves dflt out (vpp1, z0) */
    bool key_joins;             /* the value follows the previous token
                                   with no '.' and no key ("rc-full" + "4":
                                   "rc-full4"); key + value where the
                                   previous dimension printed nothing */
    bool is_switch;             /* off/on ("n"/"y"); a space may say "any" */
    bool per_layer;             /* changes per-layer times: memo key */
    enum plan_dim_role role;
    enum plan_dim_auto autorule;
    size_t offset;              /* of the int32_t field in struct plan */
};

extern const struct plan_dim_info plan_dims[PLAN_DIM_COUNT];

struct plan;
int32_t plan_dim_get(const struct plan *p, enum plan_dim d);
void plan_dim_set(struct plan *p, enum plan_dim d, int32_t v);
/* The dimension called 'name' ("tp", "recompute"), or -1. */
int plan_dim_find(const char *name);
/* A value of dimension d from text: an integer in [lo, hi], or one of its
 * names ("selective", also "sel" for recompute; "y"/"n" for sp). 0 or -1. */
int plan_dim_parse(enum plan_dim d, const char *s, int32_t *out);
/* The value's name ("selective"), or NULL for an integer dimension. */
const char *plan_dim_value_name(enum plan_dim d, int32_t v);
/* "'none', 'selective', 'full'" or "an integer in [1, 1048576]". */
void plan_dim_expect(enum plan_dim d, char *buf, size_t n);

#endif /* SPACE_DIMS_H */
