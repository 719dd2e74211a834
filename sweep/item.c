/* sweep/item.c: one work item: load the model, the system variant and the
 * job with the item's --set assignments, search every GPU count on the
 * calling thread, and turn each count's best plan into a row with what
 * training takes (results/tradeoff.c's arithmetic); and a batch of items
 * over the threads. */
#include "sweep/sweep.h"

#include <omp.h>
#include <string.h>

#include "common/alloc.h"
#include "hardware/hw.h"
#include "results/tradeoff.h"
#include "search/search.h"
#include "spaces/gpus.h"
#include "spaces/model.h"
#include "spaces/scenario.h"
#include "spaces/stack.h"

struct item_inputs {            /* large: allocated once per item */
    struct scenario scen;
    struct model model;
    struct hw_system hw;
    struct stack stack;
    struct plan_limits stack_limits;
    struct pred_ctx ctx;
    struct gpu_list gpus;
};

int sweep_gpu_count(const struct sweep *sw, size_t *n, struct tpl_err *err)
{
    static struct scenario scen;
    struct gpu_list l;
    int rc = scenario_load(&scen, sw->scenario, NULL, 0, err);
    if (rc)
        return rc;
    if (gpu_list_parse(&l, sw->gpus[0] ? sw->gpus : scen.space.gpus, "'gpus'",
                       err))
        return TPL_ECONFIG;
    *n = l.n;
    gpu_list_release(&l);
    return 0;
}

static int load(const struct sweep *sw, uint64_t item, struct item_inputs *in,
                struct tpl_err *err)
{
    char buf[SWEEP_MAX_ITEM_SETS][SWEEP_SET_LEN];
    const char *sets[SWEEP_MAX_ITEM_SETS];
    int m, s, idx[SWEEP_MAX_AXES];
    int n = sweep_item_sets(sw, item, buf, sets);
    int rc;
    sweep_decode(sw, item, &m, &s, idx);
    if ((rc = scenario_load(&in->scen, sw->scenario, sets, n, err)) ||
        (rc = model_load(&in->model, sw->models[m], sets, n, err)) ||
        (rc = hw_system_load(&in->hw, sw->systems[s], sets, n, err)) ||
        (rc = stack_load(&in->stack, in->scen.stack, sets, n, err)))
        return rc;
    stack_apply(&in->stack, &in->model, &in->scen.job);    /* as cmd_load_inputs */
    stack_limits(&in->stack, &in->stack_limits);
    if (gpu_list_parse(&in->gpus, sw->gpus[0] ? sw->gpus : in->scen.space.gpus,
                       "'gpus'", err))
        return TPL_ECONFIG;
    if ((rc = pred_precision_check(&in->hw, &in->scen.job, err)))
        return rc;
    pred_ctx_init(&in->ctx, &in->model, &in->hw, &in->scen.job,
                  in->scen.space.tp_cross_node);
    pred_ctx_set_stack(&in->ctx, in->stack.name, &in->stack_limits,
                       (struct pred_band){ in->stack.band_lo,
                                          in->stack.band_hi, in->stack.region });
    return 0;
}

/* The rows of a search's best plan per GPU count. */
static void fill(const struct sweep *sw, const struct item_inputs *in,
                 const struct search_result *res, struct sweep_row *rows)
{
    double tokens = sw->tokens > 0 ? sw->tokens : in->scen.job.tokens;
    double price = sw->price >= 0 ? sw->price : in->hw.usd_per_gpu_hour;
    struct tradeoff t;
    res_tradeoff_build(&in->ctx, res, tokens, price, 0.5, &t);
    for (size_t g = 0; g < t.n; g++) {
        const struct tradeoff_row *w = &t.rows[g];
        struct sweep_row *r = &rows[g];
        r->gpus = w->gpus;
        r->status = w->feasible;
        r->calibrated = in->hw.calibrated;
        if (!w->feasible) {
            r->margin_gib = -res->per_gpu[g].nearest_short_bytes / (1 << 30);
            continue;
        }
        plan_key(&w->plan, r->key, sizeof r->key);
        r->iteration_s = w->r.iteration_s;
        r->days = w->days;
        r->gpu_hours = w->gpu_hours;
        r->cost_usd = w->cost_usd;
        r->energy_kwh = w->energy_kwh;
        r->mfu = w->r.mfu;
        r->margin_gib = w->r.mem.margin_bytes / (1 << 30);
    }
    res_tradeoff_release(&t);
}

static int search(const struct sweep *sw, struct item_inputs *in,
                  struct sweep_row *rows, size_t n_gpus, struct tpl_err *err)
{
    struct search_cfg cfg = { .ctx = &in->ctx, .space = &in->scen.space,
        .gpus = in->gpus.v, .n_gpus = in->gpus.n, .top_k = 1, .seed = 1 };
    struct search_result res;
    int rc;
    if (in->gpus.n != n_gpus)
        return tpl_errorf(err, TPL_ECONFIG, "the GPU counts differ by item");
    omp_set_num_threads(1);             /* one item, one thread */
    if ((rc = search_run(&cfg, &res, err)))
        return rc;
    fill(sw, in, &res, rows);
    search_result_release(&res);
    return 0;
}

void sweep_item_run(const struct sweep *sw, uint64_t item, size_t n_gpus,
                    struct sweep_row *rows)
{
    struct item_inputs *in = xcalloc(1, sizeof *in);
    struct tpl_err err = { 0 };
    int rc;
    memset(rows, 0, n_gpus * sizeof *rows);
    for (size_t g = 0; g < n_gpus; g++)
        rows[g].item = item;
    rc = load(sw, item, in, &err);
    if (rc == 0)
        rc = search(sw, in, rows, n_gpus, &err);
    if (rc) {
        rows[0].status = rc;
        snprintf(rows[0].key, sizeof rows[0].key, "%.95s", err.msg);
    }
    gpu_list_release(&in->gpus);
    free(in);
}

void sweep_items_compute(const struct sweep *sw, const uint64_t *items,
                         size_t n, size_t n_gpus, struct sweep_row *rows,
                         const volatile sig_atomic_t *stop,
                         const struct sweep_sink *sink)
{
    for (size_t i = 0; i < n * n_gpus; i++)
        rows[i].item = UINT64_MAX;
    #pragma omp parallel for schedule(dynamic, 1)
    for (size_t i = 0; i < n; i++) {
        struct sweep_row *mine = &rows[i * n_gpus];
        if (stop && *stop)
            continue;
        sweep_item_run(sw, items[i], n_gpus, mine);
        if (sink && sink->fn) {
            #pragma omp critical(sweep_sink)
            sink->fn(sink->arg, mine, n_gpus);
        }
    }
}
