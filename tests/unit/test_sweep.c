/* tests/unit/test_sweep.c: the sweep's grid (value lists and ranges, links,
 * the item count and its limit, mixed-radix order with the last varied field
 * fastest, an item's --set assignments), the Pareto set on hand-made rows,
 * the checkpoint's round trip and its torn record, and one item against a
 * plain search of the same variant. */
#include "helpers.h"

#include <unistd.h>

#include "results/goodput.h"
#include "search/search.h"
#include "spaces/stack.h"
#include "sweep/sweep.h"

static void grid(struct sweep *sw)
{
    struct tpl_err err = { 0 };
    sweep_init(sw);
    strcpy(sw->scenario, "default");
    sw->n_models = 2;
    strcpy(sw->models[0], "llama3-8b");
    strcpy(sw->models[1], "llama3-70b");
    sw->n_systems = 1;
    strcpy(sw->systems[0], "dgx-h100");
    cr_assert_eq(sweep_add_vary(sw, "gpu.hbm_gib=80,141,192", "t", &err), 0, "%s", err.msg);
    cr_assert_eq(sweep_add_vary(sw, "network.nic_gbps=200:1600:x2", "t", &err), 0, "%s", err.msg);
}

Test(sweep, values_lists_and_ranges)
{
    struct sweep sw;
    struct tpl_err err = { 0 };
    grid(&sw);
    cr_assert_eq(sw.axes[0].n, 3);
    cr_assert_str_eq(sw.axes[0].v[2], "192");
    cr_assert_eq(sw.axes[1].n, 4);              /* 200, 400, 800, 1600 */
    cr_assert_str_eq(sw.axes[1].v[0], "200");
    cr_assert_str_eq(sw.axes[1].v[3], "1600");
    cr_assert_eq(sweep_add_vary(&sw, "node.gpus=4:8:+2,72", "t", &err), 0);
    cr_assert_eq(sw.axes[2].n, 4);              /* 4, 6, 8 and 72 */
    cr_assert_str_eq(sw.axes[2].v[1], "6");
    cr_assert_str_eq(sw.axes[2].v[3], "72");
    sweep_release(&sw);
}

Test(sweep, bad_specs_are_refused)
{
    static const char *const bad[] = {
        "gpu.hbm_gib", "hbm_gib=80", "gpu.hbm_gib=", "gpu.hbm_gib=80,,141",
        "gpu.hbm_gib=2:1:x2", "gpu.hbm_gib=0:8:x2", "gpu.hbm_gib=1:8:x1",
        "gpu.hbm_gib=1:8:+0", "gpu.hbm_gib=1:2", "gpu.hbm_gib=1:1e9:+1",
    };
    struct sweep sw;
    struct tpl_err err = { 0 };
    sweep_init(&sw);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_expect_eq(sweep_add_vary(&sw, bad[i], "t", &err), TPL_ECONFIG, "%s", bad[i]);
    cr_assert_eq(sw.n_axes, 0);
    cr_assert_eq(sweep_add_vary(&sw, "gpu.hbm_gib=80", "t", &err), 0);
    cr_assert_eq(sweep_add_vary(&sw, "gpu.hbm_gib=96", "f:3", &err), TPL_ECONFIG);
    cr_assert_str_eq(err.msg, "f:3: 'vary' names 'gpu.hbm_gib' twice");
    sweep_release(&sw);
}

Test(sweep, count_is_the_product_and_has_a_limit)
{
    struct sweep sw;
    struct tpl_err err = { 0 };
    uint64_t n = 0;
    grid(&sw);
    cr_assert_eq(sweep_count(&sw, &n, &err), 0);
    cr_assert_eq(n, 2 * 1 * 3 * 4);
    sw.max_items = 23;
    cr_assert_eq(sweep_count(&sw, &n, &err), TPL_ECONFIG);
    cr_assert_str_eq(err.msg, "the grid has 24 items, more than --max-items 23");
    sweep_release(&sw);
}

/* Item 0 is the first value of everything; the last field moves fastest:
 * item 1 is the second NIC speed, item 4 the second HBM size, item 12 the
 * second model (3 x 4 = 12 variants per model). */
Test(sweep, decode_is_mixed_radix_last_field_fastest)
{
    struct sweep sw;
    int m, s, idx[SWEEP_MAX_AXES];
    grid(&sw);
    sweep_decode(&sw, 1, &m, &s, idx);
    cr_assert(m == 0 && s == 0 && idx[0] == 0 && idx[1] == 1);
    sweep_decode(&sw, 4, &m, &s, idx);
    cr_assert(m == 0 && idx[0] == 1 && idx[1] == 0);
    sweep_decode(&sw, 12, &m, &s, idx);
    cr_assert(m == 1 && idx[0] == 0 && idx[1] == 0);
    sweep_decode(&sw, 23, &m, &s, idx);
    cr_assert(m == 1 && idx[0] == 2 && idx[1] == 3);
    sweep_release(&sw);
}

Test(sweep, item_sets_fixed_then_varied_then_linked)
{
    struct sweep sw;
    struct tpl_err err = { 0 };
    char buf[SWEEP_MAX_ITEM_SETS][SWEEP_SET_LEN];
    const char *sets[SWEEP_MAX_ITEM_SETS];
    int n;
    grid(&sw);
    strcpy(sw.sets[sw.n_sets++], "job.seq=4096");
    cr_assert_eq(sweep_add_link(&sw, "gpu.hbm_gib:price.usd_per_gpu_hour=2,3,4",
                                "t", &err), 0, "%s", err.msg);
    n = sweep_item_sets(&sw, 6, buf, sets);     /* hbm 141 (1), nic 800 (2) */
    cr_assert_eq(n, 4);
    cr_assert_str_eq(sets[0], "job.seq=4096");
    cr_assert_str_eq(sets[1], "gpu.hbm_gib=141");
    cr_assert_str_eq(sets[2], "network.nic_gbps=800");
    cr_assert_str_eq(sets[3], "price.usd_per_gpu_hour=3");
    cr_assert_eq(sweep_add_link(&sw, "gpu.hbm_gib:price.usd_per_gpu_hour=1,2",
                                "t", &err), TPL_ECONFIG);
    cr_assert_str_eq(err.msg, "t: 'link' 'price.usd_per_gpu_hour' has 2 values, "
                     "'gpu.hbm_gib' 3");
    sweep_release(&sw);
}

Test(sweep, hash_changes_with_any_value)
{
    struct sweep a, b;
    struct tpl_err err = { 0 };
    grid(&a);
    grid(&b);
    cr_assert_eq(sweep_hash(&a), sweep_hash(&b));
    strcpy(b.axes[0].v[1], "140");
    cr_assert_neq(sweep_hash(&a), sweep_hash(&b));
    strcpy(b.axes[0].v[1], "141");
    cr_assert_eq(sweep_add_vary(&b, "node.gpus=8", "t", &err), 0);
    cr_assert_neq(sweep_hash(&a), sweep_hash(&b));
    sweep_release(&a);
    sweep_release(&b);
}

/* Five rows by hand, (days, cost): A (10, 100), B (5, 200), C (5, 150),
 * D (20, 90), E (12, 120), F infeasible. C beats B (as fast, cheaper), A
 * beats E; D is the cheapest. Frontier: C, A, D. In another group, E alone
 * is its frontier. */
Test(sweep, pareto_by_hand)
{
    struct sweep_row r[6] = {
        { .status = 1, .days = 10, .cost_usd = 100 },
        { .status = 1, .days = 5, .cost_usd = 200 },
        { .status = 1, .days = 5, .cost_usd = 150 },
        { .status = 1, .days = 20, .cost_usd = 90 },
        { .status = 1, .days = 12, .cost_usd = 120 },
        { .status = 0 },
    };
    bool f[6];
    int group[6] = { 0, 0, 0, 0, 1, 0 };
    sweep_pareto(r, NULL, 6, f);
    cr_assert(f[0] && !f[1] && f[2] && f[3] && !f[4] && !f[5]);
    sweep_pareto(r, group, 6, f);
    cr_assert(f[0] && !f[1] && f[2] && f[3] && f[4] && !f[5]);
}

/* What a checkpoint holds reads back bit for bit; a torn last record is
 * dropped (and cut from the file); another sweep's checkpoint is refused. */
Test(sweep, checkpoint_round_trip_and_torn_record)
{
    char path[] = "/tmp/test-sweep-XXXXXX";
    int fd = mkstemp(path);
    struct sweep_row rows[2] = {
        { .item = 3, .gpus = 64, .status = 1, .key = "tp8.pp2.dp4.mb1",
          .iteration_s = 0.1, .days = 1.0 / 3, .mfu = 0.4567, .margin_gib = -2.5 },
        { .item = 3, .gpus = 128, .status = 0, .margin_gib = -0.7 },
    };
    struct sweep_row torn = rows[0];
    struct sweep_result r = { .n_items = 5, .n_gpus = 2 };
    struct sweep_ckpt ck;
    struct tpl_err err = { 0 };
    r.rows = calloc(10, sizeof *r.rows);
    r.done = calloc(5, sizeof *r.done);
    close(fd);
    unlink(path);
    cr_assert_eq(sweep_ckpt_open(&ck, path, 42, &r, &err), 0, "%s", err.msg);
    cr_assert_eq(sweep_ckpt_append(&ck, rows, 2, &err), 0);
    torn.item = 4;
    cr_assert_eq(sweep_ckpt_append(&ck, (struct sweep_row[]){ torn, torn }, 2, &err), 0);
    cr_assert_eq(ftruncate(ck.fd, lseek(ck.fd, 0, SEEK_END) - 5), 0);
    sweep_ckpt_close(&ck);
    cr_assert_eq(sweep_ckpt_open(&ck, path, 42, &r, &err), 0, "%s", err.msg);
    sweep_ckpt_close(&ck);
    cr_assert(r.done[3] && !r.done[4]);
    cr_assert_eq(r.n_done, 1);
    for (int g = 0; g < 2; g++) {           /* exact: hexadecimal floats */
        const struct sweep_row *a = &r.rows[6 + g], *b = &rows[g];
        cr_assert(a->item == 3 && a->gpus == b->gpus && a->status == b->status);
        cr_assert_str_eq(a->key, b->key);
        cr_assert(a->iteration_s == b->iteration_s && a->days == b->days &&
                  a->mfu == b->mfu && a->margin_gib == b->margin_gib);
    }
    cr_assert_eq(sweep_ckpt_open(&ck, path, 43, &r, &err), TPL_ECONFIG);
    unlink(path);
    free(r.rows);
    free(r.done);
}

/* An item is the plain search of its variant: item 5 of the grid is
 * llama3-8b with 141 GiB of HBM and a 400 Gb/s NIC, under the default
 * scenario's stack (megatron-core), folded in as the commands do. */
Test(sweep, item_equals_the_search_of_its_variant)
{
    struct sweep sw;
    struct sweep_row rows[1];
    const char *sets[] = { "gpu.hbm_gib=141", "network.nic_gbps=400" };
    struct model m = load_model("llama3-8b");
    struct hw_system h;
    struct job j = make_job(8192, 512);
    struct pred_ctx c;
    struct space s = { 0 };
    int64_t gpus = 64;
    struct search_cfg cfg = { .ctx = &c, .space = &s, .gpus = &gpus, .n_gpus = 1,
                              .top_k = 1, .seed = 1 };
    struct search_result res;
    struct tpl_err err = { 0 };
    struct stack st;
    struct plan_limits lim;
    char key[96];
    struct goodput g;
    grid(&sw);
    strcpy(sw.gpus, "64");
    sweep_item_run(&sw, 5, 1, rows);
    cr_assert_eq(rows[0].status, 1, "%s", rows[0].key);
    cr_assert_eq(hw_system_load(&h, "dgx-h100", sets, 2, &err), 0, "%s", err.msg);
    j.tokens = 15e12;
    cr_assert_eq(stack_load(&st, "megatron-core", NULL, 0, &err), 0, "%s", err.msg);
    stack_apply(&st, &m, &j);
    stack_limits(&st, &lim);
    pred_ctx_init(&c, &m, &h, &j, false);
    pred_ctx_set_stack(&c, st.name, &lim,
                       (struct pred_band){ st.band_lo, st.band_hi, st.region });
    cr_assert_eq(search_run(&cfg, &res, &err), 0, "%s", err.msg);
    plan_key(&res.per_gpu[0].hits[0].plan, key, sizeof key);
    cr_assert_str_eq(rows[0].key, key);
    cr_assert_eq(rows[0].iteration_s, res.per_gpu[0].hits[0].iteration_s);
    res_goodput_of(&h, &m, 64, &g);         /* tradeoff's: with interruptions */
    assert_rel(rows[0].gpu_hours, 15e12 / res.per_gpu[0].results[0].tokens_per_s
               / 3600 * 64 / g.fraction, 1e-12);
    search_result_release(&res);
    sweep_release(&sw);
}
