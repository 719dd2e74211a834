/* sweep/load.c: the sweep file (libconfig, one group 'sweep'), read with the
 * discipline of every input: each field checked, "FILE:LINE: 'field' ..."
 * errors, unknown fields named; and the embedded default. */
#include "sweep/sweep.h"

#include <string.h>

#include "common/conf.h"
#include "hardware/hw.h"
#include "spaces/gpus.h"
#include "spaces/model.h"
#include "spaces/scenario.h"
#include "spaces/stack.h"

/* The default: two models on DGX H100 with 80 or 141 GiB of HBM (the price
 * follows: $2.50 and $3.00 per GPU-hour, illustrative) and a 400 or 800 Gb/s
 * NIC per GPU, at 64..256 GPUs: 8 items. */
const char sweep_default_text[] =
    "sweep: {\n"
    "  scenario = \"default\";\n"
    "  models   = [ \"llama3-8b\", \"llama3-70b\" ];\n"
    "  systems  = [ \"dgx-h100\" ];\n"
    "  gpus     = \"64..256\";\n"
    "  tokens   = 15e12;\n"
    "  vary     = [ \"gpu.hbm_gib=80,141\", \"network.nic_gbps=400:800:x2\" ];\n"
    "  link     = [ \"gpu.hbm_gib:price.usd_per_gpu_hour=2.5,3.0\" ];\n"
    "};\n";

static const struct conf_preset presets[] = {
    { "default", sweep_default_text },
};

static const char *const roots[] = { "sweep", NULL };
static const char *const fields[] = {
    "scenario", "models", "systems", "gpus", "tokens", "price", "vary", "link",
    "set", "max_items", NULL,
};

/* A list of strings, each shorter than 'len'; an absent optional list is
 * empty. 'add' takes each element with its place. */
typedef int add_fn(struct sweep *sw, const char *v, const char *where,
                   struct tpl_err *err);

static int read_list(struct sweep *sw, const struct conf_group *g,
                     const char *key, bool required, add_fn *add,
                     struct tpl_err *err)
{
    const config_setting_t *s = config_setting_get_member(g->s, key);
    char where[200];
    int n;
    if (!s)
        return required ? conf_str(g, key, where, 1, err) : 0;   /* "missing" */
    conf_where(g->c, s, where, sizeof where);
    n = config_setting_is_aggregate(s) ? config_setting_length(s) : -1;
    if (n < 0)
        return tpl_errorf(err, TPL_ECONFIG, "%s: '%s' must be a list of strings",
                          where, key);
    for (int i = 0; i < n; i++) {
        const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        const char *v = config_setting_get_string(e);
        conf_where(g->c, e, where, sizeof where);     /* the element's line */
        if (!v || !*v)
            return tpl_errorf(err, TPL_ECONFIG, "%s: '%s' element %d must be a "
                              "non-empty string", where, key, i + 1);
        if (add(sw, v, where, err))
            return TPL_ECONFIG;
    }
    return 0;
}

static int add_name(char (*names)[256], int *n, const char *v, const char *where,
                    const char *key, struct tpl_err *err)
{
    if (*n >= SWEEP_MAX_NAMES || strlen(v) >= 256)
        return tpl_errorf(err, TPL_ECONFIG, "%s: '%s': at most %d names of "
                          "255 characters", where, key, SWEEP_MAX_NAMES);
    strcpy(names[(*n)++], v);
    return 0;
}

static int add_model(struct sweep *sw, const char *v, const char *where,
                     struct tpl_err *err)
{
    return add_name(sw->models, &sw->n_models, v, where, "models", err);
}

static int add_system(struct sweep *sw, const char *v, const char *where,
                      struct tpl_err *err)
{
    return add_name(sw->systems, &sw->n_systems, v, where, "systems", err);
}

static int add_set(struct sweep *sw, const char *v, const char *where,
                   struct tpl_err *err)
{
    if (sw->n_sets >= SWEEP_MAX_SETS || strlen(v) >= sizeof sw->sets[0] ||
        !strchr(v, '='))
        return tpl_errorf(err, TPL_ECONFIG, "%s: 'set' element '%s' must be "
                          "section.field=value (at most %d)", where, v,
                          SWEEP_MAX_SETS);
    strcpy(sw->sets[sw->n_sets++], v);
    return 0;
}

/* A non-empty list where one is required. */
static int nonempty(const struct conf_group *g, const char *key, int n,
                    struct tpl_err *err)
{
    char where[200];
    if (n > 0)
        return 0;
    conf_where(g->c, config_setting_get_member(g->s, key), where, sizeof where);
    return tpl_errorf(err, TPL_ECONFIG, "%s: '%s' must list at least one name",
                      where, key);
}

static int read_scalars(struct sweep *sw, const struct conf_group *g,
                        struct tpl_err *err)
{
    int64_t max = 0;
    if (conf_str(g, "scenario", sw->scenario, sizeof sw->scenario, err) ||
        conf_str(g, "gpus", sw->gpus, sizeof sw->gpus, err) ||
        gpu_list_check_conf(g, sw->gpus, err) ||
        conf_num(g, "tokens", 0, false, 1e18, &sw->tokens, err))
        return TPL_ECONFIG;
    if (conf_has(g, "price") &&
        conf_num(g, "price", 0, false, 1e6, &sw->price, err))
        return TPL_ECONFIG;
    if (conf_has(g, "max_items") &&
        conf_int(g, "max_items", 1, (int64_t)1 << 40, &max, err))
        return TPL_ECONFIG;
    if (max)
        sw->max_items = (uint64_t)max;
    return 0;
}

int sweep_read(struct sweep *sw, const struct conf *c, struct tpl_err *err)
{
    struct conf_group g;
    if (conf_check_known(c, config_root_setting(&c->cfg), "a sweep file", roots,
                         err) ||
        conf_group(c, "sweep", &g, err) ||
        conf_check_group_known(&g, fields, err) || read_scalars(sw, &g, err) ||
        read_list(sw, &g, "models", true, add_model, err) ||
        nonempty(&g, "models", sw->n_models, err) ||
        read_list(sw, &g, "systems", true, add_system, err) ||
        nonempty(&g, "systems", sw->n_systems, err) ||
        read_list(sw, &g, "vary", true, sweep_add_vary, err) ||
        read_list(sw, &g, "link", false, sweep_add_link, err) ||
        read_list(sw, &g, "set", false, add_set, err))
        return TPL_ECONFIG;
    return 0;
}

int sweep_load(struct sweep *sw, const char *path, struct tpl_err *err)
{
    struct conf c;
    int rc = conf_load_named(&c, path, presets, 1, "sweep", err);
    if (rc == 0)
        rc = sweep_read(sw, &c, err);
    conf_release(&c);
    return rc;
}

/* ---- every value loads ---- */

/* Load the first model and system and the scenario with 'sets'. */
static int load_with(const struct sweep *sw, const char *const *sets, int n,
                     struct tpl_err *err)
{
    static _Thread_local struct scenario scen;
    static _Thread_local struct model m;
    static _Thread_local struct hw_system hw;
    static _Thread_local struct stack st;
    return scenario_load(&scen, sw->scenario, sets, n, err) ||
           model_load(&m, sw->models[0], sets, n, err) ||
           hw_system_load(&hw, sw->systems[0], sets, n, err) ||
           stack_load(&st, scen.stack, sets, n, err) ? TPL_ECONFIG : 0;
}

/* A field of a model, system or scenario section. */
static int known_section(const char *assignment, const char *where,
                         const char *what, struct tpl_err *err)
{
    char section[64] = "";
    if (conf_set_section(assignment, section, sizeof section, NULL))
        return tpl_errorf(err, TPL_ECONFIG, "%s: '%s' '%s': expected "
                          "section.field=value", where, what, assignment);
    if (!strcmp(section, "model") || !strcmp(section, "stack") ||
        hw_is_section(section) || scenario_is_section(section))
        return 0;
    return tpl_errorf(err, TPL_ECONFIG, "%s: '%s' '%s': unknown section '%s'",
                      where, what, assignment, section);
}

static int check_axis(const struct sweep *sw, const struct sweep_axis *a,
                      const char *what, struct tpl_err *err)
{
    char buf[SWEEP_SET_LEN];
    const char *set = buf;
    struct tpl_err e = { 0 };
    for (int i = 0; i < a->n; i++) {
        snprintf(buf, sizeof buf, "%s=%s", a->field, a->v[i]);
        if (known_section(buf, a->where, what, err))
            return TPL_ECONFIG;
        if (load_with(sw, &set, 1, &e))
            return tpl_errorf(err, TPL_ECONFIG, "%s: '%s' value '%s': %s",
                              a->where, what, buf, e.msg);
    }
    return 0;
}

/* The fixed sets name known sections; every model and system loads. */
static int check_names(const struct sweep *sw, const char *const *sets,
                       struct tpl_err *err)
{
    static _Thread_local struct model m;
    static _Thread_local struct hw_system hw;
    for (int i = 0; i < sw->n_sets; i++)
        if (known_section(sw->sets[i], "--set or 'set'", "set", err))
            return TPL_ECONFIG;
    for (int i = 0; i < sw->n_models; i++)
        if (model_load(&m, sw->models[i], sets, sw->n_sets, err))
            return TPL_ECONFIG;
    for (int i = 0; i < sw->n_systems; i++)
        if (hw_system_load(&hw, sw->systems[i], sets, sw->n_sets, err))
            return TPL_ECONFIG;
    return 0;
}

int sweep_check(const struct sweep *sw, struct tpl_err *err)
{
    const char *sets[SWEEP_MAX_SETS];
    for (int i = 0; i < sw->n_sets; i++)
        sets[i] = sw->sets[i];
    if (check_names(sw, sets, err) || load_with(sw, sets, sw->n_sets, err))
        return TPL_ECONFIG;
    for (int i = 0; i < sw->n_axes; i++)
        if (check_axis(sw, &sw->axes[i], "vary", err))
            return TPL_ECONFIG;
    for (int i = 0; i < sw->n_links; i++)
        if (check_axis(sw, &sw->links[i], "link", err))
            return TPL_ECONFIG;
    return 0;
}
