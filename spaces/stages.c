/* spaces/stages.c: the layer-split rules of the stacks (stages.h).
 *
 * megatron: Megatron-Core megatron/core/transformer/transformer_block.py
 *   get_num_layers_to_build (and megatron/training/arguments.py): either
 *   every pipeline rank holds (layers + e + l) / pp layer slots, where
 *   --account-for-embedding-in-pipeline-split (e = 1) and
 *   --account-for-loss-in-pipeline-split (l = 1) make the embedding and the
 *   loss a slot each on the first / last rank (asserted divisible by pp;
 *   with interleaving each rank's slots divide by vpp and the first / last
 *   model chunk builds one layer fewer, none when a chunk is one slot:
 *   get_num_layers_to_build asserts num_layers_to_build >= 0); or
 *   --decoder-first-pipeline-num-layers / --decoder-last-pipeline-num-layers
 *   fix the end ranks and the rest divide evenly over the middle ranks
 *   ("With uneven pipelineing the left over layers must be divisible by
 *   left over stages"), every rank's count divisible by vpp. When the rule
 *   chooses: equal stages if they divide, else both ends as slots (NeMo's
 *   Llama 3.1 405B recipe: PP8 VP8, nemo/collections/llm/recipes/
 *   llama31_405b.py), else the loss or the embedding alone, else explicit
 *   end counts with ceil(layers / (pp vpp)) vpp layers on each middle rank
 *   and the rest halved over the ends (Meta's Llama 3 405B, arXiv:2407.21783
 *   sec. 3.3.2: "we reduce one Transformer layer each from the first and
 *   the last stages", 126 layers = 7 + 14 x 8 + 7 on PP16).
 * even: Megatron-LM of 2021 (megatron/arguments.py): num_layers divisible
 *   by pp (and by pp x vpp with interleaving).
 * torchtitan: torchtitan/distributed/pipeline_parallel.py
 *   generate_llm_fqn_per_model_part(num_stages, num_layers, input_weight=1,
 *   output_weight=1): layers + 2 effective layers over pp x vpp stages,
 *   floor each, the remainder one each to the earliest stages; the first
 *   stage gives one slot to tok_embeddings, the last one to norm + output.
 *   Virtual stage s sits on rank s % pp (stage_ids_this_rank, loop style).
 *   A multi-stage schedule takes 2 stages per rank unless
 *   pipeline_parallel_layers_per_stage asks for a rigid fit (layers + 2
 *   divisible by pp, and that by the stages per rank).
 *   RUNS.md torchtitan_2412: 126 layers on PP8: [15, 16 x 6, 15].
 * deepspeed: deepspeed/runtime/pipe/module.py PipelineModule
 *   _partition_layers, method 'type:REGEX': weight 1 per matching layer,
 *   runtime/utils.py partition_balanced: the smallest bottleneck B =
 *   ceil(slots / pp) found by bisection, then _lprobe fills each stage up to
 *   B from the front, so the last stages take what is left. Megatron-
 *   DeepSpeed's GPTModelPipe uses 'type:transformer' by default;
 *   BigScience's fork adds --pp-partition-method, and BLOOM trained with
 *   'type:transformer|embedding' (bigscience train/tr11-176B-ml: 70 layers
 *   + 2 embeddings = 72 = 12 x 6 on PP12), where the input embedding and
 *   the tied output embedding are slots too. No interleaving (the plan rule
 *   stack-schedule refuses vpp > 1). */
#include "spaces/stages.h"

#include <stdio.h>
#include <string.h>

const char *const stage_split_names[STAGE_SPLIT_COUNT] = {
    [STAGE_SPLIT_MEGATRON] = "megatron", [STAGE_SPLIT_EVEN] = "even",
    [STAGE_SPLIT_TORCHTITAN] = "torchtitan",
    [STAGE_SPLIT_DEEPSPEED] = "deepspeed",
    [STAGE_SPLIT_DEEPSPEED_ENDS] = "deepspeed-ends",
};

const char *stage_split_name(enum stage_split s) { return stage_split_names[s]; }

int stage_split_parse(const char *s, enum stage_split *out)
{
    for (int i = 0; i < STAGE_SPLIT_COUNT; i++)
        if (!strcmp(s, stage_split_names[i])) {
            *out = (enum stage_split)i;
            return 0;
        }
    return -1;
}

/* ---- megatron ---- */

/* The account_for_* form: every rank 'm' slots, the ends one fewer layer
 * where the embedding / loss take a slot; m divides by vpp. */
static int mcore_slots(struct stage_layout *s, int64_t m, int e, int l)
{
    if (m % s->vpp || m - e < 1 || m - l < 1)
        return -1;
    s->mid = (int32_t)m;
    s->first = (int32_t)(m - e);
    s->last = (int32_t)(m - l);
    s->embed_slot = e;
    s->loss_slot = l;
    return 0;
}

/* Explicit end counts, each rank's count divisible by vpp, or with
 * 'layout' any counts of at least one layer per model chunk (Megatron's
 * --pipeline-model-parallel-layout, transformer_config.py
 * PipelineParallelLayerLayout: any number of layers per virtual stage,
 * pp x vpp stages). */
static int mcore_explicit(struct stage_layout *s, int64_t f, int64_t l,
                          int64_t mid, bool layout)
{
    int64_t v = s->vpp;
    bool split = f % v || l % v || (s->pp > 2 && mid % v);
    if (f < 1 || l < 1 || mid < (s->pp > 2) || (split && (!layout || v < 2)) ||
        (split && (f < v || l < v || (s->pp > 2 && mid < v))))
        return -1;
    s->first = (int32_t)f;
    s->last = (int32_t)l;
    s->mid = (int32_t)(s->pp > 2 ? mid : (f > l ? f : l));
    s->layout = split;
    return 0;
}

static int mcore_auto(struct stage_layout *s)
{
    static const int slots[3][2] = { { 1, 1 }, { 0, 1 }, { 1, 0 } };
    int64_t L = s->layers, pv = (int64_t)s->pp * s->vpp, m, rem, l;
    for (int i = 0; i < 3; i++)
        if ((L + slots[i][0] + slots[i][1]) % pv == 0 &&
            mcore_slots(s, (L + slots[i][0] + slots[i][1]) / s->pp,
                        slots[i][0], slots[i][1]) == 0)
            return 0;
    if (s->pp < 3)             /* no middle rank: halves, as a layout */
        return s->vpp > 1 ? mcore_explicit(s, L - L / 2, L / 2, 0, true) : -1;
    m = s->vpp * ((L + pv - 1) / pv);
    rem = L - (int64_t)(s->pp - 2) * m;
    l = s->vpp * (rem / (2 * s->vpp));
    if (rem >= 0 && rem % s->vpp == 0 && rem - l <= m)
        return mcore_explicit(s, rem - l, l, m, false);
    /* a layout: the rest halved over the ends, the first one the larger */
    l = rem / 2;
    if (rem < 0 || rem - l > m)
        return -1;
    return mcore_explicit(s, rem - l, l, m, true);
}

/* Asked-for end counts (0: as the middle ranks). With pp 2 there is no
 * middle rank: the slot form's per-rank count is the larger end's, or one
 * more when both ends gave a slot. */
static int mcore_given(struct stage_layout *s, int64_t f, int64_t l)
{
    int64_t left = s->layers - f - l, n = s->pp - (f > 0) - (l > 0), mid;
    if (left < 0 || (n > 0 && left % n) || (n == 0 && left))
        return -1;
    mid = n > 0 ? left / n : (f > l ? f : l);
    f = f ? f : mid;
    l = l ? l : mid;
    if (mcore_explicit(s, f, l, mid, false) == 0) {
        s->even = f == mid && l == mid && mid * s->pp == s->layers;
        return 0;
    }
    for (int64_t m = mid; m <= mid + (s->pp == 2); m++)
        if (f <= m && l <= m && f >= m - 1 && l >= m - 1 &&
            mcore_slots(s, m, (int)(m - f), (int)(m - l)) == 0)
            return 0;
    return mcore_explicit(s, f, l, mid, true);
}

static int megatron(struct stage_layout *s, int32_t f, int32_t l)
{
    if (f || l)
        return mcore_given(s, f, l);
    if (s->layers % ((int64_t)s->pp * s->vpp) == 0) {
        s->first = s->last = s->mid = (int32_t)(s->layers / s->pp);
        s->even = true;
        return 0;
    }
    return mcore_auto(s);
}

/* ---- even, torchtitan, deepspeed ---- */

static int even(struct stage_layout *s)
{
    if (s->layers % ((int64_t)s->pp * s->vpp))
        return -1;
    s->first = s->last = s->mid = (int32_t)(s->layers / s->pp);
    s->even = true;
    return 0;
}

static int torchtitan(struct stage_layout *s)
{
    int64_t n = (int64_t)s->pp * s->vpp, eff = s->layers + 2;
    if (n > eff || eff / n < 1)
        return -1;
    /* more than 2 stages per rank only by pipeline_parallel_layers_per_stage,
     * a rigid fit: layers + 2 divide by pp, then by the stages per rank */
    if (s->vpp > 2 && (eff % s->pp || (eff / s->pp) % s->vpp))
        return -1;
    s->per = (int32_t)(eff / n);
    s->extra = (int32_t)(eff % n);
    return 0;
}

static int deepspeed(struct stage_layout *s, int ends)
{
    int64_t slots = s->layers + 2 * ends, b = (slots + s->pp - 1) / s->pp;
    if (b < 1 + ends ||
        slots - (int64_t)(s->pp - 1) * b < 1 + ends)
        return -1;
    s->per = (int32_t)b;
    s->extra = (int32_t)(slots - (int64_t)(s->pp - 1) * b);
    s->embed_slot = s->loss_slot = ends;
    s->even = !ends && s->extra == b;
    return 0;
}

/* Rank r's layers under a slot rule (torchtitan, deepspeed). */
static int32_t slot_layers(const struct stage_layout *s, int64_t r)
{
    int64_t n = 0;
    if (s->rule == STAGE_SPLIT_TORCHTITAN) {
        n = (int64_t)s->vpp * s->per;
        if (s->extra > r) {
            int64_t k = (s->extra - r + s->pp - 1) / s->pp;
            n += k < s->vpp ? k : s->vpp;
        }
        return (int32_t)(n - (r == 0) - (r == s->pp - 1));
    }
    n = r == s->pp - 1 ? s->extra : s->per;
    return (int32_t)(n - s->embed_slot * (r == 0) - s->loss_slot * (r == s->pp - 1));
}

static bool slot_rule(const struct stage_layout *s)
{
    return s->per > 0;
}

int stage_layout(enum stage_split rule, int64_t layers, int32_t pp,
                 int32_t vpp, int32_t first, int32_t last,
                 struct stage_layout *out)
{
    int rc;
    memset(out, 0, sizeof *out);
    *out = (struct stage_layout){ .rule = rule, .layers = (int32_t)layers,
                                  .pp = pp, .vpp = vpp };
    if (pp < 1 || vpp < 1 || layers < pp || first < 0 || last < 0)
        return -1;
    if (pp == 1) {              /* one stage holds everything (vpp > 1 is
                                   the plan rule vpp-pp's) */
        out->first = out->last = out->mid = (int32_t)layers;
        out->even = true;
        return (first && first != layers) || (last && last != layers) ? -1 : 0;
    }
    if (rule == STAGE_SPLIT_MEGATRON)
        return megatron(out, first, last);
    rc = rule == STAGE_SPLIT_EVEN ? even(out)
       : rule == STAGE_SPLIT_TORCHTITAN ? torchtitan(out)
       : deepspeed(out, rule == STAGE_SPLIT_DEEPSPEED_ENDS);
    if (rc == 0 && slot_rule(out)) {
        out->first = slot_layers(out, 0);
        out->last = slot_layers(out, pp - 1);
        out->mid = pp > 2 ? slot_layers(out, 1) : out->first;
    }
    if (rc == 0 && ((first && first != out->first) || (last && last != out->last)))
        return -1;              /* only Megatron takes asked-for counts */
    return rc;
}

int32_t stage_rank_layers(const struct stage_layout *s, int64_t r)
{
    if (slot_rule(s))
        return slot_layers(s, r);
    return r == 0 ? s->first : r == s->pp - 1 ? s->last : s->mid;
}

int32_t stage_rank_chunk(const struct stage_layout *s, int64_t r)
{
    int64_t n = stage_rank_layers(s, r);
    if (s->vpp == 1)
        return (int32_t)n;
    if (s->rule == STAGE_SPLIT_TORCHTITAN)
        return s->per + (r < s->extra);
    n += (r == 0) * s->embed_slot + (r == s->pp - 1) * s->loss_slot;
    return (int32_t)((n + s->vpp - 1) / s->vpp);
}

int32_t stage_chunk_layers(const struct stage_layout *s, int64_t r, int64_t k)
{
    int64_t n = stage_rank_layers(s, r);
    int64_t e = s->embed_slot && r == 0, l = s->loss_slot && r == s->pp - 1;
    if ((e || l) && !s->layout) /* equal slots; the embedding's is chunk
                                   0's, the loss's the last chunk's */
        return (int32_t)((n + e + l) / s->vpp - (e && k == 0) -
                         (l && k == s->vpp - 1));
    return (int32_t)(n / s->vpp + (k < n % s->vpp));
}

int32_t stage_rank_first_layers(const struct stage_layout *s, int64_t r,
                                int64_t n)
{
    int64_t l = stage_rank_layers(s, r), q = l / s->vpp, rem = l % s->vpp;
    int64_t big = q + 1 < n ? q + 1 : n, small = q < n ? q : n;
    return (int32_t)(rem * big + (s->vpp - rem) * small);
}

int64_t stage_first_layers(const struct stage_layout *s, int64_t n)
{
    int64_t t = 0;
    for (int64_t r = 0; r < s->pp; r++)
        t += stage_rank_first_layers(s, r, n);
    return t;
}

int stage_layout_string(const struct stage_layout *s, int64_t mtp, char *buf,
                        size_t n)
{
    int64_t stages = (int64_t)s->pp * s->vpp;
    size_t len = 0;
    int k = 0;
    for (int64_t v = 0; v < stages; v++) {
        int32_t t = stage_chunk_layers(s, v % s->pp, v / s->pp);
        k = snprintf(buf + len, len < n ? n - len : 0, "%s%s", v ? "|" : "",
                     v == 0 ? "E" : "");
        len += (size_t)(k > 0 ? k : 0);
        if (t == 1)
            k = snprintf(buf + len, len < n ? n - len : 0, "t");
        else if (t > 1)
            k = snprintf(buf + len, len < n ? n - len : 0, "t*%d", (int)t);
        len += (size_t)(t > 0 && k > 0 ? k : 0);
    }
    for (int64_t i = 0; i < mtp; i++)
        len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "m");
    len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "L");
    return (int)len;
}

int stage_worst_ranks(const struct stage_layout *s, int64_t out[3])
{
    int n = 0;
    out[n++] = 0;
    if (s->pp > 2)
        out[n++] = 1;
    if (s->pp > 1)
        out[n++] = s->pp - 1;
    return n;
}

int32_t stage_max_layers(const struct stage_layout *s)
{
    int64_t r[3];
    int32_t best = 0;
    for (int i = 0, n = stage_worst_ranks(s, r); i < n; i++) {
        int32_t k = stage_rank_layers(s, r[i]);
        best = k > best ? k : best;
    }
    return best;
}
