/* tests/unit/test_scenario.c: spaces/scenario.c, the scenario loader: the
 * job, the search space lists, --set, and paths relative to the file. The
 * expected values are read off the scenario texts below and
 * spaces/scenarios/default.cfg by hand. */
#include "helpers.h"

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/conf.h"
#include "spaces/scenario.h"

/* A scenario text with the given job and space groups. */
static int read_scenario(struct scenario *s, const char *job, const char *space,
                         struct tpl_err *err)
{
    char text[4096];
    struct conf c;
    int rc;
    snprintf(text, sizeof text,
             "scenario: { name = \"t\"; model = \"llama3-8b\"; system = \"dgx-a100\";\n"
             "            stack = \"torchtitan\"; };\n"
             "%s%s", job, space);
    cr_assert_eq(conf_load_string(&c, "t", text, err), 0, "%s", err->msg);
    rc = scenario_read(s, &c, err);
    conf_release(&c);
    return rc;
}

static const char *const job_text =
    "job: { seq = 4096; gbs = 256; precision = \"fp8\";\n"
    "       tokens = 1e12;\n"
    "       };\n";
static const char *const space_text =
    "space: { gpus = \"8,16..64\"; tp = [1, 2, 4]; pp = \"auto\";\n"
    "         mbs = [2]; vpp = \"auto\"; sp = \"y\"; cp = [1, 2]; tpo = \"n\";\n"
    "         recompute = [\"none\", \"full\"]; zero = [0, 1];\n"
    "         tp_cross_node = true; overlap = \"any\"; replicas = \"auto\"; ep = \"auto\"; etp = \"auto\"; epo = \"any\"; offload = \"any\"; recompute_layers = \"auto\"; };\n";

/* Every job field as written, the stack by name; the stack's effects on
 * the job (attention, overlaps, host time) are job_default's until
 * stack_apply: flash, both overlaps, no host time. */
Test(scenario, job_fields)
{
    struct scenario s;
    struct tpl_err err = { 0 };
    cr_assert_eq(read_scenario(&s, job_text, space_text, &err), 0, "%s", err.msg);
    cr_assert_str_eq(s.name, "t");
    cr_assert_str_eq(s.model, "llama3-8b");
    cr_assert_str_eq(s.system, "dgx-a100");
    cr_assert_str_eq(s.stack, "torchtitan");
    cr_assert_eq(s.job.seq, 4096);
    cr_assert_eq(s.job.gbs, 256);
    cr_assert_eq(s.job.precision, JOB_PREC_FP8);
    cr_assert_eq(s.job.attention, JOB_ATTN_FLASH);
    cr_assert_eq(s.job.tokens, 1e12);
    cr_assert(s.job.overlap_grad_reduce);
    cr_assert(s.job.overlap_param_gather);
    cr_assert_eq(s.job.host_s, 0.0);
}

/* The stack's knobs are no job fields any more: each is refused with its
 * line (line 1-2 scenario, 3 the job's first, 4 attention). */
Test(scenario, stack_knobs_are_not_job_fields)
{
    static const char *const knobs[] = { "attention = \"flash\"",
        "overlap_grad_reduce = true", "overlap_param_gather = true",
        "host_us = 60" };
    struct scenario s;
    struct tpl_err err = { 0 };
    char job[256], want[128];
    for (int i = 0; i < 4; i++) {
        snprintf(job, sizeof job, "job: { seq = 2048; gbs = 8; precision = "
                 "\"bf16\"; tokens = 0;\n %s; };\n", knobs[i]);
        cr_assert_eq(read_scenario(&s, job, space_text, &err), TPL_ECONFIG);
        snprintf(want, sizeof want, "t:4: unknown field '%.*s' in 'job'",
                 (int)strcspn(knobs[i], " "), knobs[i]);
        cr_assert_str_eq(err.msg, want);
    }
}

/* A list keeps its values in order; "auto" is the empty list (every value
 * that can be valid); recompute names map to their enum values. */
Test(scenario, space_lists)
{
    struct scenario s;
    struct tpl_err err = { 0 };
    cr_assert_eq(read_scenario(&s, job_text, space_text, &err), 0, "%s", err.msg);
    cr_assert_str_eq(s.space.gpus, "8,16..64");
    cr_assert_eq(s.space.tp.n, 3);
    cr_assert_eq(s.space.tp.v[0], 1);
    cr_assert_eq(s.space.tp.v[1], 2);
    cr_assert_eq(s.space.tp.v[2], 4);
    cr_assert_eq(s.space.pp.n, 0);
    cr_assert_eq(s.space.vpp.n, 0);
    cr_assert_eq(s.space.mbs.n, 1);
    cr_assert_eq(s.space.mbs.v[0], 2);
    cr_assert_eq(s.space.cp.n, 2);
    cr_assert_eq(s.space.cp.v[1], 2);
    cr_assert_eq(s.space.tpo.n, 1);
    cr_assert_eq(s.space.tpo.v[0], 0);
    cr_assert_eq(s.space.recompute.n, 2);
    cr_assert_eq(s.space.recompute.v[0], PLAN_RECOMPUTE_NONE);
    cr_assert_eq(s.space.recompute.v[1], PLAN_RECOMPUTE_FULL);
    cr_assert_eq(s.space.zero.n, 2);
    cr_assert_eq(s.space.zero.v[0], 0);
    cr_assert_eq(s.space.zero.v[1], 1);
    cr_assert(s.space.tp_cross_node);
}

/* Bad lists name the file, the line, the field and the element: tp's second
 * element 0 is below 1; zero 3 is above 1; "some" is no recompute mode; a
 * list of SPACE_MAX_VALUES + 1 values is too long; GPU counts must parse. */
Test(scenario, bad_lists_name_line_and_element)
{
    struct scenario s;
    struct tpl_err err = { 0 };
    char space[4096], list[1024];
    size_t at = 0;
    cr_assert_eq(read_scenario(&s, job_text,
                               "space: { gpus = \"64\";\n tp = [1, 0];\n pp = \"auto\";\n"
                               " mbs = \"auto\"; vpp = \"auto\"; sp = \"any\"; cp = \"auto\"; tpo = \"any\";\n"
                               " recompute = \"auto\"; zero = \"auto\";\n"
                               " tp_cross_node = false; overlap = \"any\"; replicas = \"auto\"; ep = \"auto\"; etp = \"auto\"; epo = \"any\"; offload = \"any\"; recompute_layers = \"auto\"; };\n", &err), TPL_ECONFIG);
    /* lines 1-2 scenario, 3-5 job, 6 space's first, 7 tp */
    cr_assert_str_eq(err.msg, "t:7: 'tp' element 2 must be an integer in [1, 1048576]");
    cr_assert_eq(read_scenario(&s, job_text,
                               "space: { gpus = \"64\"; tp = \"auto\"; pp = \"auto\";\n"
                               " mbs = \"auto\"; vpp = \"auto\"; sp = \"any\"; cp = \"auto\"; tpo = \"any\";\n"
                               " recompute = [\"none\", \"some\"]; zero = \"auto\";\n"
                               " tp_cross_node = false; overlap = \"any\"; replicas = \"auto\"; ep = \"auto\"; etp = \"auto\"; epo = \"any\"; offload = \"any\"; recompute_layers = \"auto\"; };\n", &err), TPL_ECONFIG);
    cr_assert_str_eq(err.msg, "t:8: 'recompute' element 2 must be one of 'none', "
                     "'selective', 'full'");
    cr_assert_eq(read_scenario(&s, job_text,
                               "space: { gpus = \"64\"; tp = \"auto\"; pp = \"auto\";\n"
                               " mbs = \"auto\"; vpp = \"auto\"; sp = \"any\"; cp = \"auto\"; tpo = \"any\";\n"
                               " recompute = \"auto\"; zero = [4];\n"
                               " tp_cross_node = false; overlap = \"any\"; replicas = \"auto\"; ep = \"auto\"; etp = \"auto\"; epo = \"any\"; offload = \"any\"; recompute_layers = \"auto\"; };\n", &err), TPL_ECONFIG);
    cr_assert_str_eq(err.msg, "t:8: 'zero' element 1 must be an integer in [0, 3]");
    for (int i = 0; i <= SPACE_MAX_VALUES; i++)
        at += (size_t)snprintf(list + at, sizeof list - at, "%s%d", i ? ", " : "",
                               i + 1);
    snprintf(space, sizeof space,
             "space: { gpus = \"64\"; tp = [%s]; pp = \"auto\";\n"
             " mbs = \"auto\"; vpp = \"auto\"; sp = \"any\"; cp = \"auto\"; tpo = \"any\";\n"
             " recompute = \"auto\"; zero = \"auto\"; tp_cross_node = false; overlap = \"any\"; replicas = \"auto\"; ep = \"auto\"; etp = \"auto\"; epo = \"any\"; offload = \"any\"; recompute_layers = \"auto\"; };\n",
             list);
    cr_assert_eq(read_scenario(&s, job_text, space, &err), TPL_ECONFIG);
    cr_assert_str_eq(err.msg, "t:6: 'tp' must be \"auto\", a value or a list of 1 to 64 values");
    cr_assert_eq(read_scenario(&s, job_text,
                               "space: { gpus = \"64..\"; tp = \"auto\"; pp = \"auto\";\n"
                               " mbs = \"auto\"; vpp = \"auto\"; sp = \"any\"; cp = \"auto\"; tpo = \"any\";\n"
                               " recompute = \"auto\"; zero = \"auto\";\n"
                               " tp_cross_node = false; overlap = \"any\"; replicas = \"auto\"; ep = \"auto\"; etp = \"auto\"; epo = \"any\"; offload = \"any\"; recompute_layers = \"auto\"; };\n", &err), TPL_ECONFIG);
    cr_assert(strstr(err.msg, "t:6: 'gpus'") == err.msg, "%s", err.msg);
}

/* The embedded default (spaces/scenarios/default.cfg): Llama 3 70B on DGX
 * H100, seq 8192, gbs 512, 15T tokens, GPUs 64..1024, every list "auto". A
 * --set of job or space applies; one of another section (model) is left to
 * the model loader. */
Test(scenario, default_preset_and_set)
{
    const char *sets[] = { "job.seq=4096", "space.gpus=8..64", "model.layers=2" };
    struct scenario s;
    struct tpl_err err = { 0 };
    cr_assert_eq(scenario_load(&s, "default", NULL, 0, &err), 0, "%s", err.msg);
    cr_assert_str_eq(s.model, "llama3-70b");
    cr_assert_str_eq(s.system, "dgx-h100");
    cr_assert_str_eq(s.stack, "megatron-core");
    cr_assert_eq(s.job.seq, 8192);
    cr_assert_eq(s.job.gbs, 512);
    cr_assert_eq(s.job.tokens, 15e12);
    cr_assert_str_eq(s.space.gpus, "64..1024");
    cr_assert_eq(s.space.tp.n, 0);
    cr_assert_eq(s.space.recompute.n, 0);
    cr_assert_eq(scenario_load(&s, "default", sets, 2, &err), 0, "%s", err.msg);
    cr_assert_eq(s.job.seq, 4096);
    cr_assert_eq(s.job.gbs, 512);
    cr_assert_str_eq(s.space.gpus, "8..64");
    cr_assert_eq(scenario_load(&s, "default", sets + 2, 1, &err), 0, "%s", err.msg);
    cr_assert_eq(s.job.seq, 8192);
}

/* A model or system path with a '/' in a scenario file is relative to the
 * file's directory; a bare name (a preset) and an absolute path stay. */
Test(scenario, paths_relative_to_the_file)
{
    char dir[] = "/tmp/trainplan-scenario-XXXXXX", path[600], want[700];
    struct scenario s;
    struct tpl_err err = { 0 };
    FILE *fp;
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/s.cfg", dir);
    fp = fopen(path, "w");
    cr_assert_not_null(fp);
    fprintf(fp, "scenario: { name = \"r\"; model = \"models/m.cfg\";\n"
                "  system = \"/abs/sys.cfg\"; stack = \"stacks/k.cfg\"; };\n%s%s",
            job_text, space_text);
    fclose(fp);
    cr_assert_eq(scenario_load(&s, path, NULL, 0, &err), 0, "%s", err.msg);
    snprintf(want, sizeof want, "%s/models/m.cfg", dir);
    cr_assert_str_eq(s.model, want);
    cr_assert_str_eq(s.system, "/abs/sys.cfg");
    snprintf(want, sizeof want, "%s/stacks/k.cfg", dir);
    cr_assert_str_eq(s.stack, want);
    fp = fopen(path, "w");
    cr_assert_not_null(fp);
    fprintf(fp, "scenario: { name = \"r\"; model = \"llama3-8b\";\n"
                "  system = \"dgx-a100\"; stack = \"megatron-core\"; };\n%s%s",
            job_text, space_text);
    fclose(fp);
    cr_assert_eq(scenario_load(&s, path, NULL, 0, &err), 0, "%s", err.msg);
    cr_assert_str_eq(s.model, "llama3-8b");
    cr_assert_str_eq(s.system, "dgx-a100");
    cr_assert_str_eq(s.stack, "megatron-core");
    unlink(path);
    rmdir(dir);
}
