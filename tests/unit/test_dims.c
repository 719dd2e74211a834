/* tests/unit/test_dims.c: the table of plan dimensions (spaces/dims.h): each
 * row names a real field of struct plan, parses and prints its values, and
 * the key, the degree rule and the search read it. */
#include "helpers.h"

#include <string.h>

#include "spaces/dims.h"
#include "spaces/space.h"

/* Writing through the table lands in the named field, and back. */
Test(dims, rows_address_their_fields)
{
    struct plan p = { 0 };
    for (int d = 0; d < PLAN_DIM_COUNT; d++)
        plan_dim_set(&p, (enum plan_dim)d, 100 + d);
    cr_assert_eq(p.tp, 100 + PLAN_DIM_TP);
    cr_assert_eq(p.pp, 100 + PLAN_DIM_PP);
    cr_assert_eq(p.dp, 100 + PLAN_DIM_DP);
    cr_assert_eq(p.mbs, 100 + PLAN_DIM_MBS);
    cr_assert_eq(p.vpp, 100 + PLAN_DIM_VPP);
    cr_assert_eq(p.sp, 100 + PLAN_DIM_SP);
    cr_assert_eq(p.recompute, 100 + PLAN_DIM_RECOMPUTE);
    cr_assert_eq(p.zero, 100 + PLAN_DIM_ZERO);
    for (int d = 0; d < PLAN_DIM_COUNT; d++)
        cr_assert_eq(plan_dim_get(&p, (enum plan_dim)d), 100 + d);
}

Test(dims, every_row_is_complete)
{
    for (int d = 0; d < PLAN_DIM_COUNT; d++) {
        const struct plan_dim_info *di = &plan_dims[d];
        cr_assert(di->name && *di->name && di->key && *di->key, "row %d", d);
        cr_assert(di->help && *di->help, "%s", di->name);
        cr_assert_leq(di->lo, di->dflt, "%s", di->name);
        cr_assert_leq(di->dflt, di->hi, "%s", di->name);
        cr_assert_eq(plan_dim_find(di->name), d);
        cr_assert_eq(di->role == PLAN_ROLE_DERIVED, di->autorule == PLAN_AUTO_DERIVED,
                     "%s", di->name);
        for (int v = di->lo; di->names && v <= di->hi; v++)
            cr_assert_not_null(di->names[v], "%s %d", di->name, v);
    }
    cr_assert_eq(plan_dim_find("expert"), -1);
}

/* The per-layer times depend on tp, cp, tpo, sp, mbs, recompute, and for
 * MoE layers ep and etp, only (pred.h, pred_memo_build), so exactly those
 * are the memo key. */
Test(dims, memo_key_is_what_the_layer_times_read)
{
    cr_assert(plan_dims[PLAN_DIM_TP].per_layer);
    cr_assert(plan_dims[PLAN_DIM_CP].per_layer);
    cr_assert(plan_dims[PLAN_DIM_TPO].per_layer);
    cr_assert(plan_dims[PLAN_DIM_MBS].per_layer);
    cr_assert(plan_dims[PLAN_DIM_SP].per_layer);
    cr_assert(plan_dims[PLAN_DIM_RECOMPUTE].per_layer);
    cr_assert(plan_dims[PLAN_DIM_EP].per_layer);    /* the MoE layer's */
    cr_assert(plan_dims[PLAN_DIM_ETP].per_layer);
    cr_assert_not(plan_dims[PLAN_DIM_PP].per_layer);
    cr_assert_not(plan_dims[PLAN_DIM_DP].per_layer);
    cr_assert_not(plan_dims[PLAN_DIM_VPP].per_layer);
    cr_assert_not(plan_dims[PLAN_DIM_ZERO].per_layer);
}

Test(dims, values_parse_and_print)
{
    char buf[128];
    int32_t v = -7;
    cr_assert_eq(plan_dim_parse(PLAN_DIM_TP, "8", &v), 0);
    cr_assert_eq(v, 8);
    cr_assert_eq(plan_dim_parse(PLAN_DIM_TP, "0", &v), -1);
    cr_assert_eq(plan_dim_parse(PLAN_DIM_TP, "8x", &v), -1);
    cr_assert_eq(plan_dim_parse(PLAN_DIM_TP, "", &v), -1);
    cr_assert_eq(plan_dim_parse(PLAN_DIM_TP, "1048577", &v), -1);
    cr_assert_eq(plan_dim_parse(PLAN_DIM_ZERO, "4", &v), -1);
    cr_assert_eq(plan_dim_parse(PLAN_DIM_RECOMPUTE, "sel", &v), 0);
    cr_assert_eq(v, PLAN_RECOMPUTE_SELECTIVE);
    cr_assert_eq(plan_dim_parse(PLAN_DIM_RECOMPUTE, "full", &v), 0);
    cr_assert_eq(v, PLAN_RECOMPUTE_FULL);
    cr_assert_eq(plan_dim_parse(PLAN_DIM_RECOMPUTE, "some", &v), -1);
    cr_assert_eq(plan_dim_parse(PLAN_DIM_SP, "y", &v), 0);
    cr_assert_eq(v, 1);
    cr_assert_str_eq(plan_dim_value_name(PLAN_DIM_RECOMPUTE, 1), "selective");
    cr_assert_null(plan_dim_value_name(PLAN_DIM_TP, 1));
    cr_assert_null(plan_dim_value_name(PLAN_DIM_RECOMPUTE, 3));
    plan_dim_expect(PLAN_DIM_RECOMPUTE, buf, sizeof buf);
    cr_assert_str_eq(buf, "'none', 'selective', 'full'");
    plan_dim_expect(PLAN_DIM_ZERO, buf, sizeof buf);
    cr_assert_str_eq(buf, "an integer in [0, 3]");
}

/* The degree rule reads each row's range: sp and recompute out of range
 * are refused like a zero degree. */
Test(dims, degree_rule_reads_the_ranges)
{
    struct model m = load_model("llama3-70b");
    struct job j = make_job(8192, 512);
    struct plan_limits lim = { .tp_domain = 8, PLAN_ANY_STACK };
    struct plan p = make_plan(8, 4, 8, 1);
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_OK);
    p.recompute = 3;
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_RULE_DEGREE);
    p.recompute = 0;
    p.sp = 2;
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_RULE_DEGREE);
    p.sp = 0;
    p.zero = -1;
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_RULE_DEGREE);
}

/* The space's named lists are its table rows. */
Test(dims, space_lists_by_name_and_row)
{
    struct space s;
    memset(&s, 0, sizeof s);
    s.recompute.n = 1;
    s.zero.v[0] = 1;
    cr_assert_eq(s.dim[PLAN_DIM_RECOMPUTE].n, 1);
    cr_assert_eq(s.dim[PLAN_DIM_ZERO].v[0], 1);
    cr_assert_eq(&s.tp, &s.dim[PLAN_DIM_TP]);
    cr_assert_eq(&s.vpp, &s.dim[PLAN_DIM_VPP]);
}
