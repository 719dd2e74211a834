/* spaces/stages.h: how a stack splits a model's transformer layers over the
 * pipeline ranks (and their virtual stages), the layout that the plan rule
 * layers-pp checks, the predictor's slowest stage and worst-stage memory
 * read, and the exporters spell. Every rule is closed form: O(1) per plan,
 * nothing allocated (the search's hot loop calls it). Sources per rule in
 * stages.c. */
#ifndef SPACE_STAGES_H
#define SPACE_STAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A stack's layer-split rule (spaces/stack.h field 'pipeline_split'). */
enum stage_split {
    STAGE_SPLIT_MEGATRON,       /* Megatron-Core: equal stages, or the
                                   embedding / loss as layer slots, or
                                   explicit first / last stage counts */
    STAGE_SPLIT_EVEN,           /* Megatron-LM 2021: layers % (pp vpp) == 0 */
    STAGE_SPLIT_TORCHTITAN,     /* torchtitan: embedding and output one slot
                                   each, remainder to the earliest stages */
    STAGE_SPLIT_DEEPSPEED,      /* DeepSpeed partition_method
                                   'type:transformer': balanced greedy */
    STAGE_SPLIT_DEEPSPEED_ENDS, /* 'type:transformer|embedding': the
                                   embedding and the tied head count too */
    STAGE_SPLIT_COUNT
};
const char *stage_split_name(enum stage_split s);     /* "megatron" */
int stage_split_parse(const char *s, enum stage_split *out);
extern const char *const stage_split_names[STAGE_SPLIT_COUNT];

/* One plan's layout: transformer layers per pipeline rank (all its virtual
 * stages together). Rank 0 holds the embedding, rank pp - 1 the final norm,
 * head and loss. Middle ranks hold 'mid' layers each, except under the
 * rules that put a remainder on the earliest stages: there the heaviest
 * middle rank is rank 1 (stage_rank_layers gives every rank). */
struct stage_layout {           /* a plain value */
    enum stage_split rule;
    int32_t layers, pp, vpp;
    int32_t first, last;        /* layers on rank 0 and on rank pp - 1 */
    int32_t mid;                /* on a middle rank (rank 1 with a remainder) */
    int32_t per, extra;         /* slot rules: per-stage slots and remainder */
    bool embed_slot, loss_slot; /* Megatron account_for_embedding /
                                   account_for_loss_in_pipeline_split */
    bool even;                  /* every rank layers / pp, no slots */
    bool layout;                /* Megatron: counts that vpp does not
                                   divide, as --pipeline-model-parallel-
                                   layout spells them (a rank's chunks
                                   differ by at most one layer) */
};

/* The layout of 'layers' over pp x vpp by 'rule'; first / last 0 leave the
 * choice to the rule, otherwise they ask for those counts on the end ranks
 * (Megatron's --decoder-first/last-pipeline-num-layers; the other rules
 * accept only what they would choose). 0, or -1 when the rule cannot lay
 * the model out so (the plan rule layers-pp). */
int stage_layout(enum stage_split rule, int64_t layers, int32_t pp,
                 int32_t vpp, int32_t first, int32_t last,
                 struct stage_layout *out);
/* Transformer layers on pipeline rank r (0 <= r < pp). */
int32_t stage_rank_layers(const struct stage_layout *s, int64_t r);
/* Most transformer layers in one model chunk (virtual stage) of rank r. */
int32_t stage_rank_chunk(const struct stage_layout *s, int64_t r);
/* The most layers any rank holds. */
int32_t stage_max_layers(const struct stage_layout *s);
/* Transformer layers in model chunk (virtual stage) k of rank r: the
 * rank's layers over its vpp chunks, the first ones one more where vpp
 * does not divide them. */
int32_t stage_chunk_layers(const struct stage_layout *s, int64_t r, int64_t k);
/* Layers among the first n of each of rank r's model chunks: what
 * Megatron's block recompute (--recompute-num-layers n) rebuilds on the
 * rank, sum over its chunks k of min(n, stage_chunk_layers(s, r, k)). */
int32_t stage_rank_first_layers(const struct stage_layout *s, int64_t r,
                                int64_t n);
/* The same summed over every rank: the model's layers it rebuilds. */
int64_t stage_first_layers(const struct stage_layout *s, int64_t n);
/* Megatron's --pipeline-model-parallel-layout for s: virtual stages in
 * order (stage v on rank v % pp), '|' between them, "E" the embedding on
 * the first, "t*n" its layers, mtp "m"s and "L" the loss on the last
 * (megatron/core/transformer/pipeline_parallel_layer_layout.py). The
 * length it needs, as snprintf. */
int stage_layout_string(const struct stage_layout *s, int64_t mtp, char *buf,
                        size_t n);
/* The ranks whose stage time or memory can be the worst: 0, 1 (the
 * heaviest middle rank) and pp - 1, without repeats. Returns how many. */
int stage_worst_ranks(const struct stage_layout *s, int64_t out[3]);

#endif /* SPACE_STAGES_H */
