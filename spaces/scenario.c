/* spaces/scenario.c: scenario loader: model and system names, the job and
 * the search space, each field checked with file:line messages. */
#include "spaces/scenario.h"

#include "spaces/gpus.h"

#include <stdio.h>
#include <string.h>

const char *const scenario_sections[] = { "scenario", "job", "space", NULL };

static const char *const scenario_fields[] = { "name", "model", "system",
                                               "stack", NULL };
/* The stack's knobs (attention, overlaps, host time) are the stack file's
 * (spaces/stack.h), not the job's. */
static const char *const job_fields[] = {
    "seq", "gbs", "precision", "tokens", "recompute_modules", NULL,
};
/* "gpus", every searched dimension of plan_dims, "tp_cross_node", NULL. */
static void space_fields(const char *fields[PLAN_DIM_COUNT + 3])
{
    int n = 0;
    fields[n++] = "gpus";
    for (int d = 0; d < PLAN_DIM_COUNT; d++)
        if (plan_dims[d].role != PLAN_ROLE_DERIVED)
            fields[n++] = plan_dims[d].name;
    fields[n++] = "tp_cross_node";
    fields[n] = NULL;
}
static const char *const prec_names[] = { "bf16", "fp16", "fp8" };

bool scenario_is_section(const char *section)
{
    for (int i = 0; scenario_sections[i]; i++)
        if (!strcmp(section, scenario_sections[i]))
            return true;
    return false;
}

/* Optional: Megatron's --recompute-modules as one string ("core_attn
 * moe_act"), what selective recompute rebuilds (spaces/job.h). */
static int read_rc_modules(struct job *j, const struct conf_group *g,
                           struct tpl_err *err)
{
    const config_setting_t *s = config_setting_get_member(g->s,
                                                          "recompute_modules");
    const char *v = s ? config_setting_get_string(s) : NULL;
    char where[200], bad[40] = "";
    unsigned set = 0;
    if (!s)
        return 0;
    conf_where(g->c, s, where, sizeof where);
    if (!v || job_rc_modules_parse(v, &set, bad, sizeof bad) || !set)
        return tpl_errorf(err, TPL_ECONFIG, "%s: 'recompute_modules' must "
                          "name one or more of core_attn, moe_act, layernorm, "
                          "mla_up_proj, mlp, shared_experts, moe%s%s%s", where,
                          *bad ? ", not '" : "", bad, *bad ? "'" : "");
    j->recompute_modules = set;
    return 0;
}

static int read_job(struct job *j, const struct conf *c, struct tpl_err *err)
{
    struct conf_group g;
    int prec;
    job_default(j);             /* the stack's fields until stack_apply */
    if (conf_group(c, "job", &g, err) ||
        conf_check_group_known(&g, job_fields, err) ||
        conf_int(&g, "seq", 1, JOB_MAX_SEQ, &j->seq, err) ||
        conf_int(&g, "gbs", 1, JOB_MAX_GBS, &j->gbs, err) ||
        conf_enum(&g, "precision", prec_names, 3, &prec, err) ||
        conf_num(&g, "tokens", 0, false, 1e18, &j->tokens, err) ||
        read_rc_modules(j, &g, err))
        return TPL_ECONFIG;
    j->precision = (enum job_precision)prec;
    return 0;
}

/* One element of a dimension's list: an integer in range, or one of the
 * dimension's value names. */
static int read_elem(const config_setting_t *e, enum plan_dim d, int32_t *out)
{
    const struct plan_dim_info *di = &plan_dims[d];
    int t = config_setting_type(e);
    int64_t v;
    if (di->names)
        return t == CONFIG_TYPE_STRING
             ? plan_dim_parse(d, config_setting_get_string(e), out) : -1;
    if (t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64)
        return -1;
    v = config_setting_get_int64(e);
    if (v < di->lo || v > di->hi)
        return -1;
    *out = (int32_t)v;
    return 0;
}

/* "auto", or an array of the dimension's values. */
static int read_list(const struct conf_group *g, enum plan_dim d,
                     struct space_list *out, struct tpl_err *err)
{
    const char *key = plan_dims[d].name;
    const config_setting_t *s = config_setting_get_member(g->s, key);
    char where[200], expect[160];
    int n;
    out->n = 0;
    if (!s)
        return conf_int(g, key, 0, 0, &(int64_t){0}, err);    /* "missing" */
    conf_where(g->c, s, where, sizeof where);
    if (config_setting_type(s) == CONFIG_TYPE_STRING &&
        !strcmp(config_setting_get_string(s), "auto"))
        return 0;
    /* one value stands for a list of it (tp = 8; as tp = [8];) */
    n = config_setting_is_aggregate(s) ? config_setting_length(s) : 1;
    if (n < 1 || n > SPACE_MAX_VALUES)
        return tpl_errorf(err, TPL_ECONFIG, "%s: '%s' must be \"auto\", a "
                          "value or a list of 1 to %d values", where, key,
                          SPACE_MAX_VALUES);
    plan_dim_expect(d, expect, sizeof expect);
    for (int i = 0; i < n; i++)
        if (read_elem(config_setting_is_aggregate(s)
                      ? config_setting_get_elem(s, (unsigned)i) : s, d,
                      &out->v[out->n++]))
            return tpl_errorf(err, TPL_ECONFIG, "%s: '%s' element %d must be %s%s",
                              where, key, i + 1, plan_dims[d].names ? "one of " : "",
                              expect);
    return 0;
}

/* A switch (sp): "any" (auto), "y" or "n". */
static int read_switch(const struct conf_group *g, enum plan_dim d,
                       struct space_list *out, struct tpl_err *err)
{
    static const char *const any_yn[] = { "any", "y", "n" };
    int k;
    if (conf_enum(g, plan_dims[d].name, any_yn, 3, &k, err))
        return TPL_ECONFIG;
    out->n = k > 0;
    out->v[0] = k == 1;
    return 0;
}

static int read_dims(struct space *sp, const struct conf_group *g,
                     struct tpl_err *err)
{
    for (int d = 0; d < PLAN_DIM_COUNT; d++) {
        if (plan_dims[d].role == PLAN_ROLE_DERIVED)
            continue;
        if ((plan_dims[d].is_switch ? read_switch : read_list)(g, (enum plan_dim)d,
                                                               &sp->dim[d], err))
            return TPL_ECONFIG;
    }
    return 0;
}

static int read_space(struct space *sp, const struct conf *c, struct tpl_err *err)
{
    const char *fields[PLAN_DIM_COUNT + 3];
    struct conf_group g;
    space_fields(fields);
    if (conf_group(c, "space", &g, err) ||
        conf_check_group_known(&g, fields, err) ||
        conf_str(&g, "gpus", sp->gpus, sizeof sp->gpus, err) ||
        read_dims(sp, &g, err) ||
        conf_bool(&g, "tp_cross_node", &sp->tp_cross_node, err))
        return TPL_ECONFIG;
    return gpu_list_check_conf(&g, sp->gpus, err);
}

int scenario_read(struct scenario *s, const struct conf *c, struct tpl_err *err)
{
    struct conf_group g;
    memset(s, 0, sizeof *s);
    if (conf_check_known(c, config_root_setting(&c->cfg), "a scenario file",
                         scenario_sections, err) ||
        conf_group(c, "scenario", &g, err) ||
        conf_check_group_known(&g, scenario_fields, err) ||
        conf_str(&g, "name", s->name, sizeof s->name, err) ||
        conf_str(&g, "model", s->model, sizeof s->model, err) ||
        conf_str(&g, "system", s->system, sizeof s->system, err) ||
        conf_str(&g, "stack", s->stack, sizeof s->stack, err))
        return TPL_ECONFIG;
    return read_job(&s->job, c, err) || read_space(&s->space, c, err)
         ? TPL_ECONFIG : 0;
}

/* A relative path in a scenario file is relative to the file. */
static void rebase(char *path, size_t n, const char *scenario_path)
{
    const char *slash = strrchr(scenario_path, '/');
    char tmp[512];
    if (!slash || path[0] == '/' || !strchr(path, '/'))
        return;
    snprintf(tmp, sizeof tmp, "%.*s/%s", (int)(slash - scenario_path),
             scenario_path, path);
    if (strlen(tmp) < n)
        memcpy(path, tmp, strlen(tmp) + 1);
}

int scenario_load(struct scenario *s, const char *name_or_path,
                  const char *const *sets, int n_sets, struct tpl_err *err)
{
    struct conf c;
    int rc = conf_load_named(&c, name_or_path, scenario_presets,
                             scenario_presets_count, "scenario", err);
    for (int i = 0; rc == 0 && i < n_sets; i++) {
        char section[64];
        if (conf_set_section(sets[i], section, sizeof section, NULL) == 0 &&
            scenario_is_section(section))
            rc = conf_apply_set(&c, sets[i], err);
    }
    if (rc == 0)
        rc = scenario_read(s, &c, err);
    if (rc == 0 && !conf_preset_find(scenario_presets, scenario_presets_count,
                                     name_or_path)) {
        rebase(s->model, sizeof s->model, name_or_path);
        rebase(s->system, sizeof s->system, name_or_path);
        rebase(s->stack, sizeof s->stack, name_or_path);
    }
    conf_release(&c);
    return rc;
}
