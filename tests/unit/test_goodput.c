/* tests/unit/test_goodput.c: results/goodput.c against Daly's own worked
 * examples, values by hand, and the Llama 3 paper's figures it cites. */
#include "helpers.h"

#include "results/goodput.h"

#define MIN 60.0
#define HOUR 3600.0

/* Daly 2006 (FGCS 22, 303-312), Figs. 3-5: delta = 5 min, and the optimum
 * his higher-order estimate predicts for M = 24 h, 6 h and 15 min: 117 min,
 * 57 min and 9.1 min (his rounding: 0.5 min, 0.5 min, 0.05 min). */
Test(goodput, daly_interval_matches_his_examples)
{
    cr_assert_lt(fabs(res_daly_interval_s(5 * MIN, 24 * HOUR) / MIN - 117), 0.5);
    cr_assert_lt(fabs(res_daly_interval_s(5 * MIN, 6 * HOUR) / MIN - 57), 0.5);
    cr_assert_lt(fabs(res_daly_interval_s(5 * MIN, 15 * MIN) / MIN - 9.1), 0.05);
}

/* Young's sqrt(2 delta M) is the leading term: delta = 1 s, M = 1e8 s gives
 * sqrt(2e8) = 14142.1 s; the corrections are sqrt(1/2e8)/3 ~ 2.4e-5
 * relative and -1 s. A write longer than 2M: the interval is M. */
Test(goodput, young_limit_and_long_writes)
{
    assert_rel(res_daly_interval_s(1, 1e8), 14142.1356, 1e-4);
    cr_assert_eq(res_daly_interval_s(300, 100), 100);
}

/* T_w / T_s = M e^(R/M) (e^((tau + delta)/M) - 1) / tau. By hand, M = 3600,
 * tau = 600, delta = 60, R = 600: e^(1/6) = 1.181360, e^(660/3600) - 1 =
 * 0.201215, 3600 x 1.181360 x 0.201215 / 600 = 1.426243, goodput 0.701143.
 * Without failures (M = 1e15) only the writes cost: 100 / (100 + 1). */
Test(goodput, daly_wall_time_by_hand)
{
    assert_rel(res_daly_goodput(600, 60, 3600, 600), 0.701143, 1e-5);
    assert_rel(res_daly_goodput(100, 1, 1e15, 600), 100.0 / 101.0, 1e-6);
}

/* Interruptions every 0.01 s, a restart of a week: no progress, and 0, not a
 * NaN or an overflow. */
Test(goodput, no_progress_is_zero_not_nan)
{
    double g = res_daly_goodput(res_daly_interval_s(1, 0.01), 1, 0.01, 604800);
    cr_assert(isfinite(g));
    cr_assert_eq(g, 0);
}

/* The defaults against the Llama 3 paper (arXiv:2407.21783, sec. 3.3.4): on
 * 16,384 H100s one unexpected interruption per 54 x 24 / 419 = 3.093 h, and
 * over 90 % effective training time for Llama 3 405B (our goodput must not
 * claim less). The checkpoint: 14 bytes per parameter at 2 TB/s. */
Test(goodput, llama3_defaults)
{
    struct hw_system h = load_system("dgx-h100");
    struct model m = load_model("llama3-405b");
    struct goodput g;
    res_goodput_of(&h, &m, 16384, &g);
    assert_rel(g.mtbf_s / HOUR, 54.0 * 24 / 419, 1e-9);
    assert_rel(g.state_bytes, 14.0 * (double)model_params(&m), 1e-12);
    assert_rel(g.write_s, g.state_bytes / 2e12, 1e-12);
    assert_rel(g.restart_s, 10 * MIN, 1e-12);
    cr_assert_gt(g.fraction, 0.90);
    cr_assert_lt(g.fraction, 0.96);     /* restarts alone: 1 - 10/185.6 */
}

/* The fields are overridable: twice the restart, half the MTBF. */
Test(goodput, fields_overridable)
{
    static const char *const sets[] = { "reliability.restart_min=20",
        "reliability.gpu_mtbf_hours=1000", "reliability.storage_gbs=100" };
    struct hw_system h;
    struct tpl_err err = { 0 };
    cr_assert_eq(hw_system_load(&h, "dgx-h100", sets, 3, &err), 0, "%s", err.msg);
    assert_rel(h.restart_s, 1200.0, 1e-12);
    assert_rel(h.gpu_mtbf_s, 1000 * HOUR, 1e-12);
    assert_rel(h.storage_bytes_per_s, 100e9, 1e-12);
}
