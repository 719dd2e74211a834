/* tests/unit/test_plan.c: plan keys and validity rules. */
#include "helpers.h"

#include <string.h>

Test(plan, canonical_key)
{
    char buf[96];
    struct plan p = make_plan(8, 8, 16, 1);
    plan_key(&p, buf, sizeof buf);
    cr_assert_str_eq(buf, "tp8.pp8.dp16.mb1");
    p.vpp = 3;
    p.sp = true;
    p.recompute = PLAN_RECOMPUTE_SELECTIVE;
    p.zero = 1;
    plan_key(&p, buf, sizeof buf);
    cr_assert_str_eq(buf, "tp8.pp8.dp16.mb1.vpp3.sp.rc-sel.z1");
    p.recompute = PLAN_RECOMPUTE_FULL;
    plan_key(&p, buf, sizeof buf);
    cr_assert_str_eq(buf, "tp8.pp8.dp16.mb1.vpp3.sp.rc-full.z1");
    cr_assert_eq(plan_key(&p, buf, 4), (int)strlen("tp8.pp8.dp16.mb1.vpp3.sp.rc-full.z1"));
    cr_assert_str_eq(buf, "tp8");
}

struct rule_case {
    int tp, pp, dp, mbs, vpp, sp;
    enum plan_rule rule;
};

/* llama3-70b: 80 layers, 64 heads, 8 kv heads, ffn 28672; seq 8192; gbs 512;
 * NVLink domain 8. */
Test(plan, every_rule_names_itself)
{
    static const struct rule_case cases[] = {
        { 8, 4, 8, 1, 1, 1, PLAN_OK },
        { 0, 1, 1, 1, 1, 0, PLAN_RULE_DEGREE },
        { 3, 1, 1, 1, 1, 0, PLAN_RULE_HEADS_TP },
        { 16, 1, 1, 1, 1, 0, PLAN_RULE_KV_HEADS_TP },
        { 1, 1, 1, 1, 1, 1, PLAN_RULE_SP_TP },
        { 1, 81, 1, 1, 1, 0, PLAN_RULE_LAYERS_PP },    /* pp > layers */
        { 1, 4, 1, 1, 30, 0, PLAN_RULE_LAYERS_PP },   /* < 1 layer a chunk */
        { 1, 1, 3, 1, 1, 0, PLAN_RULE_GBS_DP },
        { 1, 1, 64, 16, 1, 0, PLAN_RULE_GBS_DP },
        { 1, 1, 1, 1, 2, 0, PLAN_RULE_VPP_PP },
        { 1, 4, 128, 2, 2, 0, PLAN_RULE_VPP_MICRO },
        { 1, 4, 128, 1, 2, 0, PLAN_OK },
    };
    struct model m = load_model("llama3-70b");
    struct job j = make_job(8192, 512);
    struct plan_limits lim = { .tp_domain = 8, .tp_cross_node = false,
                                PLAN_ANY_STACK };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct rule_case *c = &cases[i];
        struct plan p = make_plan(c->tp, c->pp, c->dp, c->mbs);
        char why[200];
        p.vpp = c->vpp;
        p.sp = c->sp;
        cr_assert_eq(plan_check(&p, &m, &j, &lim), c->rule, "case %zu: %s", i,
                     plan_rule_name(plan_check(&p, &m, &j, &lim)));
        plan_rule_explain(c->rule, &p, &m, &j, &lim, why, sizeof why);
        cr_assert(strstr(why, plan_rule_name(c->rule)) || c->rule == PLAN_OK,
                  "%s", why);
    }
}

Test(plan, tp_domain_and_ffn_and_seq)
{
    struct model m = load_model("gpt3-175b");        /* 96 heads */
    struct job j = make_job(2048, 1536);
    struct plan_limits lim = { .tp_domain = 8, .tp_cross_node = false,
                                PLAN_ANY_STACK };
    struct plan p = make_plan(16, 1, 1, 1);
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_RULE_TP_DOMAIN);
    lim.tp_cross_node = true;
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_OK);
    /* GB200 NVL72: tp 16 on ranks 64-79 would span two domains; 8 tiles 72 */
    lim.tp_domain = 72;
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_RULE_TP_DOMAIN);
    {
        char why[160];
        plan_rule_explain(PLAN_RULE_TP_DOMAIN, &p, &m, &j, &lim, why, sizeof why);
        cr_assert_str_eq(why, "tp-domain: tp (16) does not divide the NVLink "
                         "domain (72 GPUs): a tp group would span two domains");
    }
    p.tp = 8;
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_OK);
    p.tp = 16;
    lim.tp_domain = 8;
    m.ffn_hidden = 49150;
    p.tp = 4;
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_RULE_FFN_TP);
    m.ffn_hidden = 49152;
    j.seq = 2050;
    p.sp = true;
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_RULE_SEQ_SP);
}

Test(plan, parse_names)
{
    enum plan_recompute recompute;
    enum job_precision pr;
    cr_assert_eq(plan_recompute_parse("selective", &recompute), 0);
    cr_assert_eq(recompute, PLAN_RECOMPUTE_SELECTIVE);
    cr_assert_eq(plan_recompute_parse("sel", &recompute), 0);
    cr_assert_eq(plan_recompute_parse("partial", &recompute), -1);
    cr_assert_eq(job_precision_parse("fp8", &pr), 0);
    cr_assert_eq(pr, JOB_PREC_FP8);
    cr_assert_eq(job_precision_parse("fp4", &pr), -1);
}
