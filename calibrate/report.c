/* calibrate/report.c: what a calibration writes: the report of fitted values
 * and hold-out errors, and the base system file with the fitted fields
 * replaced (libconfig), so the result loads as a system like any other. */
#include "calibrate/calibrate.h"

#include <libconfig.h>

#include "common/conf.h"

void cal_report_write(FILE *fp, const struct calib_report *rep)
{
    fprintf(fp, "calibration from %s samples\n\n%-28s %12s %12s  %s\n", rep->gpu,
            "field", "fitted", "was", "note");
    for (int i = 0; i < rep->n_params; i++)
        fprintf(fp, "%-28s %12.4f %12.4f  %s\n", rep->params[i].field,
                rep->params[i].value, rep->params[i].prior, rep->params[i].note);
    fprintf(fp, "\n%-18s %4s %6s %10s %10s %12s %12s\n", "operator", "dir", "n",
            "MAPE rand", "p90 rand", "MAPE extrap", "authors");
    for (int i = 0; i < rep->n_rows; i++) {
        const struct calib_row *r = &rep->rows[i];
        if (r->mape_random < 0) {
            fprintf(fp, "%-18s %4s %6d  samples not usable (backward not "
                    "captured)\n", r->op, r->dir, r->n);
            continue;
        }
        fprintf(fp, "%-18s %4s %6d %9.2f%% %9.2f%%", r->op, r->dir, r->n,
                r->mape_random, r->p90_random);
        if (r->mape_extrap >= 0)
            fprintf(fp, " %11.2f%%", r->mape_extrap);
        else
            fprintf(fp, " %12s", "-");
        if (r->authors_pct >= 0)
            fprintf(fp, " %11.2f%%\n", r->authors_pct);
        else
            fprintf(fp, " %12s\n", "-");
    }
}

/* ---- the system file ---- */

static void set_num(struct conf *c, const char *group, const char *field, double v)
{
    config_setting_t *g = config_lookup(&c->cfg, group), *s;
    if (!g)
        return;
    s = config_setting_get_member(g, field);
    if (s && config_setting_type(s) != CONFIG_TYPE_FLOAT) {
        config_setting_remove(g, field);
        s = NULL;
    }
    if (!s)
        s = config_setting_add(g, field, CONFIG_TYPE_FLOAT);
    config_setting_set_float(s, v);
}

static void set_fields(struct conf *c, const struct hw_system *h)
{
    set_num(c, "efficiency", "gemm", h->eff_gemm);
    set_num(c, "efficiency", "gemm_bwd", h->eff_gemm_bwd);
    set_num(c, "efficiency", "gemm_half_gflop", h->gemm_half_flop / 1e9);
    set_num(c, "efficiency", "attn", h->eff_attn);
    set_num(c, "efficiency", "attn_bwd", h->eff_attn_bwd);
    set_num(c, "efficiency", "hbm", h->eff_hbm);
    set_num(c, "efficiency", "norm", h->eff_norm);
    set_num(c, "efficiency", "nvlink", h->eff_nvlink);
    set_num(c, "efficiency", "network", h->eff_net);
    set_num(c, "kernel", "launch_us", h->launch_s * 1e6);
}

int cal_system_write(FILE *fp, const char *system, const char *samples_dir,
                     const struct hw_system *fitted, const struct calib_report *rep,
                     struct tpl_err *err)
{
    struct conf c;
    int rc = conf_load_named(&c, system, hw_presets, hw_presets_count, "system", err);
    if (rc)
        return rc;
    set_fields(&c, fitted);
    fprintf(fp, "# %s: fitted by 'trainplan calibrate' from the %s samples in\n"
            "# %s; every other field as in the base system.\n", fitted->name,
            rep->gpu, samples_dir);
    config_write(&c.cfg, fp);
    conf_release(&c);
    return ferror(fp) ? tpl_errorf(err, TPL_EIO, "cannot write the system file") : 0;
}
