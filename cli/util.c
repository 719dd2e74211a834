/* cli/util.c: option helpers shared by the subcommands. */
#include "cli/cmd.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/outfile.h"

int cmd_fail(const struct tpl_err *err)
{
    fprintf(stderr, "trainplan: error: %s\n", err->msg);
    return tpl_exit_code(err->code);
}

int cmd_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fputs("trainplan: error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\ntry 'trainplan %s%s--help'\n", cmd ? cmd : "",
            cmd ? " " : "");
    return tpl_exit_code(TPL_EUSAGE);
}

int cmd_option_error(const char *cmd, int c, char **argv)
{
    return cmd_usage_error(cmd, "%s '%s'", c == ':' ? "missing value for"
                           : "unknown option", argv[optind - 1]);
}

int cmd_one_operand(const char *cmd, const char *what, int argc, char **argv)
{
    if (optind == argc)
        return cmd_usage_error(cmd, "missing %s", what);
    if (optind < argc - 1)
        return cmd_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
    return 0;
}

int opt_int(const char *opt, const char *val, int64_t lo, int64_t hi,
            int64_t *out, struct tpl_err *err)
{
    char *end;
    long long v;
    errno = 0;
    v = strtoll(val, &end, 10);
    if ((*val != '-' && (*val < '0' || *val > '9')) || *end || errno ||
        v < lo || v > hi)
        return tpl_errorf(err, TPL_EUSAGE, "'%s' must be an integer in "
                          "[%lld, %lld], not '%s'", opt, (long long)lo,
                          (long long)hi, val);
    *out = v;
    return 0;
}

int cmd_sets_add(struct cmd_sets *s, const char *assignment, struct tpl_err *err)
{
    char section[64];
    int rc = conf_set_section(assignment, section, sizeof section, err);
    if (rc)
        return rc;
    if (strcmp(section, "model") && !hw_is_section(section) &&
        !scenario_is_section(section))
        return tpl_errorf(err, TPL_EUSAGE, "--set '%s': unknown section '%s' "
                          "(model, system, gpu, node, network, efficiency, "
                          "kernel, memory, price, scenario, job, space)",
                          assignment, section);
    if (s->n == CMD_MAX_SETS)
        return tpl_errorf(err, TPL_EUSAGE, "too many --set options (at most %d)",
                          CMD_MAX_SETS);
    s->v[s->n++] = assignment;
    return 0;
}

int cmd_load_inputs(struct cmd_inputs *in, const char *scen_name,
                    const char *model, const char *system,
                    const struct cmd_sets *sets, struct tpl_err *err)
{
    int rc = scenario_load(&in->scen, scen_name ? scen_name : "default",
                           sets->v, sets->n, err);
    if (rc == 0)
        rc = model_load(&in->model, model ? model : in->scen.model, sets->v,
                        sets->n, err);
    if (rc == 0)
        rc = hw_system_load(&in->hw, system ? system : in->scen.system,
                            sets->v, sets->n, err);
    return rc;
}

int cmd_write_output(const char *path,
                     int (*write)(FILE *, void *, struct tpl_err *), void *arg,
                     struct tpl_err *err)
{
    struct tpl_outfile o;
    int rc = tpl_outfile_open(&o, path, err);
    if (rc)
        return rc;
    rc = write(o.fp, arg, err);
    if (rc) {
        tpl_outfile_abort(&o);
        return rc;
    }
    return tpl_outfile_commit(&o, err);
}
