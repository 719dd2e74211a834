/* results/search.c: the report of a search (trainplan search): per GPU count
 * the top plans with time, throughput, MFU, memory and the largest parts of
 * the breakdown, what was rejected and why; table, CSV or JSON. */
#include "results/report.h"

#include "results/nofeasible.h"

#include <math.h>
#include <string.h>

/* The context of count i: the report's, at that count's batch when a list
 * of batches was searched. Valid until the next call. */
static const struct pred_ctx *ctx_at(const struct res_report *rep, size_t i)
{
    static struct pred_ctx cb;          /* large: not on the stack */
    const int64_t *gbs = rep->u.search.gbs;
    if (!gbs || gbs[i] == rep->ctx->job.gbs)
        return rep->ctx;
    res_ctx_with_gbs(rep->ctx, gbs[i], &cb);
    return &cb;
}

/* "compute 71%, tp_comm 22%, pp_bubble 4%": the three largest parts. */
static void largest_parts(const struct pred_result *r, char *buf, size_t n)
{
    int used[PRED_PART_COUNT] = { 0 };
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < 3; k++) {
        int best = -1;
        for (int i = 0; i < PRED_PART_COUNT; i++)
            if (!used[i] && (best < 0 || r->part_s[i] > r->part_s[best]))
                best = i;
        used[best] = 1;
        len += (size_t)snprintf(buf + len, n - len, "%s%s %.0f%%", k ? ", " : "",
                                pred_part_name((enum pred_part)best),
                                100 * r->part_s[best] / r->iteration_s);
        if (len >= n)
            break;
    }
}

static void rejected_line(FILE *fp, const struct search_gpu *g)
{
    fprintf(fp, "  %llu plans: %llu valid, %llu fit in memory; rejected:",
            (unsigned long long)g->enumerated, (unsigned long long)g->valid,
            (unsigned long long)g->feasible);
    for (int r = 1; r < PLAN_RULE_COUNT; r++)
        if (g->rule[r])
            fprintf(fp, " %s %llu,", plan_rule_name((enum plan_rule)r),
                    (unsigned long long)g->rule[r]);
    fprintf(fp, " memory %llu\n", (unsigned long long)g->memory);
}

/* Where a count has no plan: the batch sizes that would have one (in a
 * run of counts, each count's with its count). */
static void table_nearby(FILE *fp, const struct res_nearby *nb, int64_t gpus)
{
    for (int k = 0; nb && k < nb->n; k++) {
        if (k == 0 && gpus)
            fprintf(fp, "  batch sizes with a plan on %lld GPUs: ",
                    (long long)gpus);
        else if (k == 0)
            fputs("  batch sizes with a plan: ", fp);
        fprintf(fp, "%s%lld%s", k ? ", " : "", (long long)nb->v[k],
                k + 1 == nb->n ? "\n" : "");
    }
}

/* A run of counts without a plan, [i, end): one block. */
static void table_none(FILE *fp, const struct search_result *s, size_t i,
                       size_t end, const struct res_nearby *nb)
{
    const struct search_gpu *g = &s->per_gpu[i];
    struct search_gpu sum;
    char span[80], why[320];
    res_none_span(g, end - i, span, sizeof span);
    res_none_why(g, end - i, why, sizeof why);
    fprintf(fp, "\n%s\n  no feasible plan: %s\n", span, why);
    for (size_t k = i; nb && k < end; k++)
        table_nearby(fp, &nb[k], end - i > 1 ? s->per_gpu[k].gpus : 0);
    res_none_sum(g, end - i, &sum);
    rejected_line(fp, &sum);
}

/* A count with plans. */
static void table_gpu(FILE *fp, const struct pred_ctx *ctx,
                      const struct search_gpu *g, bool list)
{
    char key[96], parts[128], why[320];
    if (list)
        fprintf(fp, "\n%lld GPUs, gbs %lld\n", (long long)g->gpus,
                (long long)ctx->job.gbs);
    else
        fprintf(fp, "\n%lld GPUs\n", (long long)g->gpus);
    fprintf(fp, "  %3s   %-34s %9s %11s %6s %8s %7s  %s\n", "#", "plan",
            "iter s", "tokens/s", "MFU", "mem GiB", "spare", "largest parts");
    for (int i = 0; i < g->n_hits; i++) {
        const struct pred_result *r = &g->results[i];
        plan_key(&g->hits[i].plan, key, sizeof key);
        largest_parts(r, parts, sizeof parts);
        fprintf(fp, "  %3d%c  %-34s %9.3f %11.0f %5.1f%% %8.2f %7.2f  %s\n",
                i + 1, search_tied_with_best(g, i) ? '~' : ' ', key, r->iteration_s, r->tokens_per_s, 100 * r->mfu,
                r->mem.total_bytes / RES_GIB, r->mem.margin_bytes / RES_GIB, parts);
    }
    if (g->n_hits > 0 && g->results[0].band_outside) {
        pred_band_outside(&ctx->band, (double)g->gpus, ctx->params,
                          ctx->hw.gpu_arch, why, sizeof why);
        fprintf(fp, "  %s\n", why);
    }
    if (g->n_hits > 1)
        fprintf(fp, "  top plan first in %.1f %% of %d draws inside the "
                "ranges%s\n", 100 * g->top_first, SEARCH_STABILITY_DRAWS,
                g->top_first < 1 ? "" : " (decisive: no plan tied)");
    rejected_line(fp, g);
}

/* What a plan's spare memory is held against, and the memory model's own
 * error to read it by. */
static void spare_line(FILE *fp, const struct pred_ctx *c)
{
    fprintf(fp, "spare = %.2f GiB usable", (c->hw.hbm_bytes -
            pred_reserve_bytes(c)) / RES_GIB);
    if (c->headroom_bytes > 0)
        fprintf(fp, " less %.2f GiB headroom", c->headroom_bytes / RES_GIB);
    fprintf(fp, " - mem; memory model error +-%.1f %% (%s)\n",
            PRED_MEM_ERROR_PCT, PRED_MEM_ERROR_RUNS);
}

/* What '~' marks, and the band behind it. */
static void band_line(FILE *fp, const struct pred_ctx *c)
{
    fprintf(fp, "~ = tied with the best: its range overlaps the best plan's; "
            "range t / (1 + hi) .. t / (1 + lo), stack error band lo %+.1f %%, "
            "hi %+.1f %%; top plan first: how often it stays the fastest "
            "when each time is drawn inside its range (PCG, fixed seed)\n",
            100 * c->band.lo, 100 * c->band.hi);
}

static void table_header(FILE *fp, const struct pred_ctx *c,
                         const struct res_report *rep)
{
    char gbs[80];
    if (rep->u.search.gbs)
        snprintf(gbs, sizeof gbs, "gbs per count (of the list, the one with "
                 "the most tokens/s)");
    else
        snprintf(gbs, sizeof gbs, "gbs %lld", (long long)c->job.gbs);
    char top[32] = "the best plan";
    if (!rep->u.search.summary)
        snprintf(top, sizeof top, "top %d", rep->u.search.s->top_k);
    fprintf(fp, "%s on %s (stack %s): seq %lld, %s, %s, %s attention; "
            "%s per GPU count\n", c->model.name, c->hw.name, c->stack,
            (long long)c->job.seq, gbs, job_precision_name(c->job.precision),
            job_attention_name(c->job.attention), top);
}

/* The closing lines: what was searched, and with --stats the work. */
static void table_totals(FILE *fp, const struct res_report *rep)
{
    const struct search_stats *st = &rep->u.search.s->stats;
    if (st->partial)
        fprintf(fp, "\npartial: interrupted; these are the best plans found "
                "before the stop\n");
    if (st->partial)
        fprintf(fp, "\nsearched part of %llu combinations",
                (unsigned long long)st->space_size);
    else
        fprintf(fp, "\n%s %llu of %llu combinations%s",
                st->sampled ? "sampled" : "searched",
                (unsigned long long)(st->sampled ? st->enumerated : st->space_size),
                (unsigned long long)st->space_size,
                st->sampled ? " (uniformly, with PCG)" : "");
    fprintf(fp, ": %llu plans, %llu valid, %llu fit in memory\n",
            (unsigned long long)st->enumerated,
            (unsigned long long)(st->memory + st->feasible),
            (unsigned long long)st->feasible);
    if (rep->u.search.work)
        fprintf(fp, "evaluated %llu, pruned by the time bound %llu, %.3f s, "
                "%.2f M plans/s\n", (unsigned long long)st->evaluated,
                (unsigned long long)st->bound, st->seconds,
                st->seconds > 0 ? (double)st->enumerated / st->seconds / 1e6 : 0);
}

/* What heads the table and the summary: "partial" first when the search
 * was stopped, then the job, the spare memory and (table) the band. */
static void preamble(FILE *fp, const struct pred_ctx *c,
                     const struct res_report *rep, bool band)
{
    if (rep->u.search.s->stats.partial)
        fputs("partial: interrupted; these are the best plans found before "
              "the stop\n", fp);
    table_header(fp, c, rep);
    spare_line(fp, c);
    if (band)
        band_line(fp, c);
    res_uncalibrated_note(fp, &c->hw);
}

static void table_write(FILE *fp, const struct pred_ctx *c,
                        const struct res_report *rep)
{
    const struct search_result *s = rep->u.search.s;
    const struct res_nearby *nb = rep->u.search.nearby;
    preamble(fp, c, rep, true);
    for (size_t i = 0, end; i < s->n; i = end) {
        end = res_none_run_end(s, i);
        if (end > i)
            table_none(fp, s, i, end, nb);
        else
            table_gpu(fp, ctx_at(rep, i), &s->per_gpu[end++],
                      rep->u.search.gbs != NULL);
    }
    if (rep->u.search.skipped)
        fprintf(fp, "\n%zu GPU counts have no plan: too many to search nearby "
                "batch sizes for (at most %d)\n", rep->u.search.skipped,
                RES_SUGGEST_MAX);
    table_totals(fp, rep);
}

/* ---- --summary: one line per GPU count, runs without a plan folded ---- */

static void summary_none(FILE *fp, const struct search_gpu *g, size_t k)
{
    char span[48], why[320];
    if (k == 1)
        snprintf(span, sizeof span, "%lld", (long long)g[0].gpus);
    else
        snprintf(span, sizeof span, "%lld..%lld", (long long)g[0].gpus,
                 (long long)g[k - 1].gpus);
    res_none_why(g, k, why, sizeof why);
    fprintf(fp, "%13s  no feasible plan%s: %s\n", span,
            k > 1 ? " at any of these counts" : "", why);
}

static void summary_row(FILE *fp, const struct pred_ctx *c,
                        const struct search_gpu *g)
{
    const struct pred_result *r = &g->results[0];
    char key[96];
    plan_key(&g->hits[0].plan, key, sizeof key);
    fprintf(fp, "%13lld  %-46s %6lld %9.3f %11.0f %5.1f%% %8.2f %7.2f\n",
            (long long)g->gpus, key, (long long)c->job.gbs, r->iteration_s,
            r->tokens_per_s, 100 * r->mfu, r->mem.total_bytes / RES_GIB,
            r->mem.margin_bytes / RES_GIB);
}

static void summary_write(FILE *fp, const struct pred_ctx *c,
                          const struct res_report *rep)
{
    const struct search_result *s = rep->u.search.s;
    preamble(fp, c, rep, false);
    fprintf(fp, "\n%13s  %-46s %6s %9s %11s %6s %8s %7s\n", "GPUs",
            "best plan", "gbs", "iter s", "tokens/s", "MFU", "mem GiB", "spare");
    for (size_t i = 0, end; i < s->n; i = end) {
        end = res_none_run_end(s, i);
        if (end > i)
            summary_none(fp, &s->per_gpu[i], end - i);
        else
            summary_row(fp, ctx_at(rep, i), &s->per_gpu[end++]);
    }
    table_totals(fp, rep);
}

/* ---- CSV ---- */

static void csv_write(FILE *fp, const struct res_report *rep)
{
    const struct search_result *s = rep->u.search.s;
    /* a partial search is said on stderr (exit 130), so the file stays
     * plain CSV */
    fputs("rank,tied_with_best,top_first_pct,", fp);
    res_csv_header(fp);
    for (size_t i = 0; i < s->n; i++) {
        const struct search_gpu *g = &s->per_gpu[i];
        for (int k = 0; k < g->n_hits; k++) {
            fprintf(fp, "%d,%s,%.1f,", k + 1,  /* 1,000 draws: 0.1 % steps */
                    search_tied_with_best(g, k) ? "true" : "false",
                    100 * g->top_first);
            res_csv_row(fp, ctx_at(rep, i), &g->hits[k].plan, &g->results[k]);
        }
    }
}

/* ---- JSON ---- */

static json_t *rules_obj(const uint64_t *rule, uint64_t memory)
{
    json_t *o = json_object();
    for (int r = 1; r < PLAN_RULE_COUNT; r++)
        json_object_set_new(o, plan_rule_name((enum plan_rule)r),
                            json_integer((json_int_t)rule[r]));
    json_object_set_new(o, "memory", json_integer((json_int_t)memory));
    return o;
}

static json_t *gpu_obj(const struct pred_ctx *c, const struct search_gpu *g,
                       const struct res_nearby *nb)
{
    json_t *plans = json_array();
    char why[320] = "";
    for (int k = 0; k < g->n_hits; k++) {
        json_t *p = res_plan_json(c, &g->hits[k].plan, &g->results[k]);
        json_object_set_new(p, "tied_with_best",
                            json_boolean(search_tied_with_best(g, k)));
        json_array_append_new(plans, p);
    }
    json_t *o;
    if (g->n_hits == 0)
        res_none_why(g, 1, why, sizeof why);
    o = json_pack("{s:I, s:I, s:o, s:f, s:I, s:I, s:I, s:o, s:s}",
                     "gpus", (json_int_t)g->gpus, "gbs", (json_int_t)c->job.gbs,
                     "plans", plans,
                     "top_first_pct", round(1000 * g->top_first) / 10,
                     "enumerated", (json_int_t)g->enumerated,
                     "valid", (json_int_t)g->valid,
                     "feasible", (json_int_t)g->feasible,
                     "rejected", rules_obj(g->rule, g->memory),
                     "reason", why);
    if (nb && g->n_hits == 0)
        res_json_nearby(o, nb->v, nb->n);
    return o;
}

static json_t *search_json(const struct pred_ctx *c, const struct res_report *rep)
{
    const struct search_result *s = rep->u.search.s;
    const struct res_nearby *nb = rep->u.search.nearby;
    bool work = rep->u.search.work;
    const struct search_stats *st = &s->stats;
    json_t *results = json_array(), *stats;
    for (size_t i = 0; i < s->n; i++)
        json_array_append_new(results, gpu_obj(ctx_at(rep, i), &s->per_gpu[i],
                                               nb ? &nb[i] : NULL));
    stats = json_pack("{s:I, s:I, s:I, s:o, s:b, s:b}",
                      "space", (json_int_t)st->space_size,
                      "enumerated", (json_int_t)st->enumerated,
                      "feasible", (json_int_t)st->feasible,
                      "rejected", rules_obj(st->rule, st->memory),
                      "sampled", st->sampled, "partial", st->partial);
    if (work) {                 /* these depend on the run and its threads */
        json_object_set_new(json_object_get(stats, "rejected"), "bound",
                            json_integer((json_int_t)st->bound));
        json_object_set_new(stats, "evaluated",
                            json_integer((json_int_t)st->evaluated));
        json_object_set_new(stats, "seconds", json_real(st->seconds));
    }
    return json_pack("{s:{s:s, s:s, s:s, s:I, s:I, s:s, s:i}, s:o, s:o}",
                     "job", "model", c->model.name, "system", c->hw.name,
                     "stack", c->stack,
                     "seq", (json_int_t)c->job.seq, "gbs", (json_int_t)c->job.gbs,
                     "precision", job_precision_name(c->job.precision),
                     "top", s->top_k,
                     "results", results, "stats", stats);
}

/* ---- the writers of the report table (report.c) ---- */

int res_search_table(FILE *fp, const struct res_report *rep, struct tpl_err *err)
{
    (void)err;
    if (rep->u.search.summary)
        summary_write(fp, rep->ctx, rep);
    else
        table_write(fp, rep->ctx, rep);
    return 0;
}

int res_search_csv(FILE *fp, const struct res_report *rep, struct tpl_err *err)
{
    (void)err;
    csv_write(fp, rep);
    return 0;
}

int res_search_json(FILE *fp, const struct res_report *rep, struct tpl_err *err)
{
    return res_json_emit(fp, search_json(rep->ctx, rep), err);
}
