/* results/nofeasible.c: GPU counts without a feasible plan, folded into
 * runs that share a reason, and the reason in words (nofeasible.h). */
#include "results/nofeasible.h"

#include <string.h>

static int worst_rule(const struct search_gpu *g)
{
    int worst = 1;
    for (int r = 1; r < PLAN_RULE_COUNT; r++)
        if (g->rule[r] > g->rule[worst])
            worst = r;
    return worst;
}

int res_none_class(const struct search_gpu *g)
{
    if (g->valid > 0 && g->nearest_result)
        return RES_NONE_MEMORY;
    if (g->enumerated == 0)
        return RES_NONE_LAYOUT;
    return RES_NONE_RULES;
}

size_t res_none_run_end(const struct search_result *s, size_t first)
{
    size_t end = first;
    if (first >= s->n || s->per_gpu[first].n_hits)
        return first;
    int cls = res_none_class(&s->per_gpu[first]);
    while (end < s->n && s->per_gpu[end].n_hits == 0 &&
           res_none_class(&s->per_gpu[end]) == cls)
        end++;
    return end;
}

void res_none_sum(const struct search_gpu *g, size_t k, struct search_gpu *out)
{
    memset(out, 0, sizeof *out);
    out->gpus = g[0].gpus;
    for (size_t i = 0; i < k; i++) {
        out->enumerated += g[i].enumerated;
        out->valid += g[i].valid;
        out->feasible += g[i].feasible;
        out->memory += g[i].memory;
        for (int r = 0; r < PLAN_RULE_COUNT; r++)
            out->rule[r] += g[i].rule[r];
    }
}

void res_none_span(const struct search_gpu *g, size_t k, char *buf, size_t n)
{
    if (k == 1)
        snprintf(buf, n, "%lld GPUs", (long long)g[0].gpus);
    else
        snprintf(buf, n, "%lld..%lld GPUs (%zu counts)", (long long)g[0].gpus,
                 (long long)g[k - 1].gpus, k);
}

/* Every valid plan misses memory: the nearest miss of the run, and the
 * deeper pipelines that would fit but break the stack's layer split. */
static void why_memory(const struct search_gpu *g, size_t k, char *buf, size_t n)
{
    const struct search_gpu *near = &g[0];
    char key[96], usable[96], at[48] = "";
    uint64_t layers_pp = 0;
    int len;
    for (size_t i = 0; i < k; i++) {
        if (g[i].nearest_short_bytes < near->nearest_short_bytes)
            near = &g[i];
        layers_pp += g[i].rule[PLAN_RULE_LAYERS_PP];
    }
    const struct pred_mem *mem = &near->nearest_result->mem;
    plan_key(&near->nearest, key, sizeof key);
    if (k > 1)
        snprintf(at, sizeof at, " on %lld GPUs", (long long)near->gpus);
    len = snprintf(buf, n, "nothing fits in memory; nearest: %s%s needs "
                   "%.2f GiB per GPU, %s (short by %.2f GiB)", key, at,
                   mem->total_bytes / RES_GIB,
                   res_usable_text(mem, usable, sizeof usable),
                   near->nearest_short_bytes / RES_GIB);
    if (layers_pp && len > 0 && (size_t)len < n)
        snprintf(buf + len, n - (size_t)len, "; %llu plans of other "
                 "pipeline depths break layers-pp (the stack's layer "
                 "split cannot lay them out)", (unsigned long long)layers_pp);
}

void res_none_why(const struct search_gpu *g, size_t k, char *buf, size_t n)
{
    struct search_gpu sum;
    int cls = res_none_class(&g[0]);
    if (cls == RES_NONE_MEMORY) {
        why_memory(g, k, buf, n);
        return;
    }
    if (cls == RES_NONE_LAYOUT) {
        if (k == 1)
            snprintf(buf, n, "no layout: %lld GPUs is not tp x pp x dp for "
                     "any allowed tp and pp", (long long)g[0].gpus);
        else
            snprintf(buf, n, "no layout: none of these counts is tp x pp x "
                     "dp for any allowed tp and pp");
        return;
    }
    res_none_sum(g, k, &sum);
    snprintf(buf, n, "no valid plan; most rejected by rule %s (%llu of %llu)",
             plan_rule_name((enum plan_rule)worst_rule(&sum)),
             (unsigned long long)sum.rule[worst_rule(&sum)],
             (unsigned long long)sum.enumerated);
}
