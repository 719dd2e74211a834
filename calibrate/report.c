/* calibrate/report.c: what a calibration writes: the report of fitted values
 * and hold-out errors, and the base system file with the fitted fields
 * replaced (libconfig), so the result loads as a system like any other.
 * Both walk cal_fields[], so the file holds exactly what the report says. */
#include "calibrate/calibrate.h"

#include <libconfig.h>
#include <string.h>

#include "common/conf.h"

/* ---- the report ---- */

/* " 12.34%" right-aligned in 'w' + 1 columns, or "-" where there is none. */
static void pct_cell(FILE *fp, double v, int w)
{
    if (v >= 0)
        fprintf(fp, " %*.2f%%", w - 1, v);
    else
        fprintf(fp, " %*s", w, "-");
}

static void write_row(FILE *fp, const struct cal_row *r)
{
    if (r->why) {
        fprintf(fp, "%-18s %4s %6d  %s\n", r->op, r->dir, r->n, r->why);
        return;
    }
    fprintf(fp, "%-18s %4s %6d %9.2f%% %9.2f%%", r->op, r->dir, r->n,
            r->mape_random, r->p90_random);
    pct_cell(fp, r->mape_extrap, 10);
    pct_cell(fp, r->mape_extrap_mp, 8);
    pct_cell(fp, r->mape_extrap_seq, 8);
    pct_cell(fp, r->authors_pct, 8);
    pct_cell(fp, r->mape_roofline, 9);
    pct_cell(fp, r->mape_physical, 9);
    if (r->n_failed)
        fprintf(fp, "  (%d failed or disturbed runs left out)", r->n_failed);
    fputc('\n', fp);
}

void cal_report_write(FILE *fp, const struct cal_report *rep)
{
    fprintf(fp, "calibration from %s samples\n\n%-34s %12s %12s  %s\n", rep->gpu,
            "field", "fitted", "was", "note");
    for (int f = 0; f < CAL_FIELD_COUNT; f++) {
        const struct cal_param *p = &rep->params[f];
        if (p->fitted)
            fprintf(fp, "%-34s %12.4f %12.4f  %s\n", cal_fields[f].path, p->value,
                    p->prior, p->note);
    }
    if (rep->gemm_rate_max > 0)
        fprintf(fp, "\nhighest GEMM rate sampled: %.3f of 16-bit peak (%s): a "
                "measured maximum for efficiency.gemm_max\n", rep->gemm_rate_max,
                rep->gemm_rate_at);
    fprintf(fp, "\n%-18s %4s %6s %10s %10s %10s %8s %8s %8s %9s %9s\n", "operator",
            "dir", "n", "MAPE rand", "p90 rand", "ext hidden", "ext mp", "ext seq",
            "authors", "roofline", "physical");
    for (int i = 0; i < rep->n_rows; i++)
        write_row(fp, &rep->rows[i]);
    if (rep->n_unused)
        fprintf(fp, "\nfiles not fitted\n");
    for (int i = 0; i < rep->n_unused; i++)
        fprintf(fp, "  %-52s %s\n", rep->unused[i].file, rep->unused[i].why);
}

/* ---- the system file ---- */

/* Set "group.field" to the float v, the group made when missing. */
static void set_num(struct conf *c, const char *path, double v)
{
    config_setting_t *root = config_root_setting(&c->cfg), *g, *s;
    const char *dot = strchr(path, '.');
    char group[32];
    snprintf(group, sizeof group, "%.*s", (int)(dot - path), path);
    if (!(g = config_setting_get_member(root, group)))
        g = config_setting_add(root, group, CONFIG_TYPE_GROUP);
    s = config_setting_get_member(g, dot + 1);
    if (s && config_setting_type(s) != CONFIG_TYPE_FLOAT) {
        config_setting_remove(g, dot + 1);
        s = NULL;
    }
    if (!s)
        s = config_setting_add(g, dot + 1, CONFIG_TYPE_FLOAT);
    config_setting_set_float(s, v);
}

int cal_system_write(FILE *fp, const char *system, const char *samples_dir,
                     const struct hw_system *fitted, const struct cal_report *rep,
                     struct tpl_err *err)
{
    struct conf c;
    int rc = conf_load_named(&c, system, hw_presets, hw_presets_count, "system", err);
    if (rc)
        return rc;
    config_setting_t *eff;
    for (int f = 0; f < CAL_FIELD_COUNT; f++)
        if (rep->params[f].fitted)
            set_num(&c, cal_fields[f].path, rep->params[f].value);
    eff = config_lookup(&c.cfg, "efficiency");
    if (eff && config_setting_get_member(eff, "calibrated"))
        config_setting_remove(eff, "calibrated");  /* fitted now: no flag */
    for (int i = 0; i < 2 && eff; i++) {   /* nor another GPU's clock */
        static const char *const clk[2] = { "clock", "clock_from_runs" };
        if (config_setting_get_member(eff, clk[i]))
            config_setting_remove(eff, clk[i]);
    }
    {   /* fitted on these samples now: no inherited calibration to name */
        config_setting_t *sys = config_setting_get_member(
            config_root_setting(&c.cfg), "system");
        if (sys && config_setting_get_member(sys, "calibration"))
            config_setting_remove(sys, "calibration");
    }
    fprintf(fp, "# %s: fitted by 'trainplan calibrate' from the %s samples in\n"
            "# %s; every other field as in the base system.\n", fitted->name,
            rep->gpu, samples_dir);
    config_write(&c.cfg, fp);
    conf_release(&c);
    return ferror(fp) ? tpl_errorf(err, TPL_EIO, "cannot write the system file") : 0;
}
