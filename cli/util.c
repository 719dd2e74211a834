/* cli/util.c: what the commands share besides their options: Ctrl-C, the
 * inputs, and writing a report whole. */
#include "cli/cmd.h"

#include <signal.h>

#include "common/outfile.h"

volatile sig_atomic_t cmd_interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    cmd_interrupted = 1;
}

void cmd_sigint_catch(bool on)
{
    signal(SIGINT, on ? on_sigint : SIG_DFL);
}

int cmd_load_inputs(struct cmd_inputs *in, const struct cmd_names *names,
                    const struct cmd_sets *sets, struct tpl_err *err)
{
    int rc = scenario_load(&in->scen, names->scenario ? names->scenario
                           : "default", sets->v, sets->n, err);
    if (rc == 0)
        rc = model_load(&in->model, names->model ? names->model
                        : in->scen.model, sets->v, sets->n, err);
    if (rc == 0)
        rc = hw_system_load(&in->hw, names->system ? names->system
                            : in->scen.system, sets->v, sets->n, err);
    if (rc == 0)
        rc = stack_load(&in->stack, names->stack ? names->stack
                        : in->scen.stack, sets->v, sets->n, err);
    if (rc == 0) {
        stack_apply(&in->stack, &in->model, &in->scen.job);
        stack_limits(&in->stack, &in->stack_limits);
    }
    return rc;
}

int cmd_ctx_init(struct pred_ctx *ctx, const struct cmd_inputs *in,
                 bool tp_cross_node, struct tpl_err *err)
{
    int rc = pred_precision_check(&in->hw, &in->scen.job, err);
    if (rc)
        return rc;
    pred_ctx_init(ctx, &in->model, &in->hw, &in->scen.job, tp_cross_node);
    pred_ctx_set_stack(ctx, in->stack.name, &in->stack_limits,
                       (struct pred_band){ in->stack.band_lo,
                                          in->stack.band_hi, in->stack.region });
    return 0;
}

/* Keep the file when the writer succeeded, else drop it. */
static int commit_or_abort(struct tpl_outfile *o, int rc, struct tpl_err *err)
{
    if (rc == 0)
        return tpl_outfile_commit(o, err);
    tpl_outfile_abort(o);
    return rc;
}

int cmd_write_report(const char *path, const struct res_report *rep,
                     struct tpl_err *err)
{
    struct tpl_outfile o;
    int rc = tpl_outfile_open(&o, path, err);
    return rc ? rc : commit_or_abort(&o, res_report_write(o.fp, rep, err), err);
}
