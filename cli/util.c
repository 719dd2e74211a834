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
