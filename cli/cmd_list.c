/* cli/cmd_list.c: trainplan list [models|systems|scenarios|stacks]: the
 * presets compiled into the binary, one line each. */
#include "cli/cmd.h"

#include <stdio.h>
#include <string.h>

static int list_models(struct tpl_err *err)
{
    printf("%-15s %9s %9s %7s %7s %8s %9s  %s\n", "model", "params", "active",
           "layers", "hidden", "heads/kv", "vocab", "description");
    for (size_t i = 0; i < model_presets_count; i++) {
        struct model m;
        char heads[32];
        if (model_load(&m, model_presets[i].name, NULL, 0, err))
            return err->code;
        snprintf(heads, sizeof heads, "%lld/%lld", (long long)m.heads,
                 (long long)m.kv_heads);
        printf("%-15s %8.2fB %8.2fB %7lld %7lld %8s %9lld  %s\n", m.name,
               (double)model_params(&m) / 1e9,
               (double)model_active_params(&m) / 1e9, (long long)m.layers,
               (long long)m.hidden, heads, (long long)m.vocab, m.description);
    }
    return 0;
}

/* Where each system's kernel efficiencies come from, when not from samples
 * of its own (system.calibration in the file). */
static int list_calibration(struct tpl_err *err)
{
    bool head = false;
    for (size_t i = 0; i < hw_presets_count; i++) {
        struct hw_system h;
        if (hw_system_load(&h, hw_presets[i].name, NULL, 0, err))
            return err->code;
        if (!h.calibration[0])
            continue;
        if (!head)
            printf("\nefficiencies\n");
        head = true;
        printf("  %-16s %s\n", h.name, h.calibration);
    }
    return 0;
}

static int list_systems(struct tpl_err *err)
{
    printf("%-16s %-16s %9s %10s %8s %7s %9s %9s\n", "system", "gpu",
           "gpus/node", "bf16 TF/s", "HBM GiB", "HBM TB/s", "NVLink GB/s",
           "NIC Gb/s");
    for (size_t i = 0; i < hw_presets_count; i++) {
        struct hw_system h;
        if (hw_system_load(&h, hw_presets[i].name, NULL, 0, err))
            return err->code;
        printf("%-16s %-16s %9lld %10.1f %8.1f %7.2f %11.0f %9.0f\n", h.name,
               h.gpu_name, (long long)h.gpus_per_node, h.bf16_flops / 1e12,
               h.hbm_bytes / RES_GIB, h.hbm_bytes_per_s / 1e12,
               h.nvlink_bytes_per_s / 1e9, h.nic_bytes_per_s * 8 / 1e9);
    }
    return list_calibration(err);
}

static int list_scenarios(struct tpl_err *err)
{
    printf("%-12s %-14s %-14s %-14s %8s %6s  %s\n", "scenario", "model",
           "system", "stack", "seq", "gbs", "gpus");
    for (size_t i = 0; i < scenario_presets_count; i++) {
        struct scenario s;
        if (scenario_load(&s, scenario_presets[i].name, NULL, 0, err))
            return err->code;
        printf("%-12s %-14s %-14s %-14s %8lld %6lld  %s\n", s.name, s.model,
               s.system, s.stack, (long long)s.job.seq, (long long)s.job.gbs,
               s.space.gpus);
    }
    return 0;
}

/* "1f1b,interleaved" from a bit set over 'n' names. */
static const char *bits_list(uint32_t bits, int n,
                             const char *(*name)(int), char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && len < size; i++)
        if (bits >> i & 1)
            len += (size_t)snprintf(buf + len, size - len, "%s%s",
                                    len ? "," : "", name(i));
    return len ? buf : "-";
}

static const char *sched_name(int i)
{
    return stack_schedule_name((enum stack_schedule)i);
}

static const char *fw_name(int i)
{
    return stack_framework_name((enum stack_framework)i);
}

static const char *zero_name(int i)
{
    static const char *const z[] = { "0", "1", "2", "3" };
    return z[i];
}

static void stack_line(const struct stack *s)
{
    char sched[64], zero[16], fw[48];
    printf("%-18s %-8s %-7s %-9s %7g %-35s %-7s %-5s %s\n", s->name,
           job_attention_name(s->attention), s->dropout ? "yes" : "no",
           s->overlap_grad_reduce ? (s->overlap_param_gather ? "grad,param"
           : "grad") : "-", s->host_s * 1e6,
           bits_list(s->schedules, STACK_SCHED_COUNT, sched_name, sched,
                     sizeof sched),
           bits_list(s->zero, STACK_MAX_ZERO + 1, zero_name, zero, sizeof zero),
           stack_tp_overlap_name(s->tp_comm_overlap),
           bits_list(s->frameworks, STACK_FW_COUNT, fw_name, fw, sizeof fw));
}

static int list_stacks(struct tpl_err *err)
{
    printf("%-18s %-8s %-7s %-9s %7s %-35s %-7s %-5s %s\n", "stack", "attn",
           "dropout", "overlap", "host_us", "schedules", "zero", "tpo",
           "framework");
    for (size_t i = 0; i < stack_presets_count; i++) {
        struct stack s;
        if (stack_load(&s, stack_presets[i].name, NULL, 0, err))
            return err->code;
        stack_line(&s);
    }
    return 0;
}

static const struct {
    const char *name;
    int (*list)(struct tpl_err *err);
} lists[] = {
    { "models", list_models },
    { "systems", list_systems },
    { "scenarios", list_scenarios },
    { "stacks", list_stacks },
};

#define N_LISTS (sizeof lists / sizeof lists[0])

static bool known(const char *what)
{
    for (size_t i = 0; i < N_LISTS; i++)
        if (!strcmp(what, lists[i].name))
            return true;
    return false;
}

int cmd_list(int argc, char **argv, struct tpl_err *err)
{
    const char *what = argc > 1 ? argv[1] : NULL;
    int rc = 0, shown = 0;
    if (argc > 2)
        return tpl_errorf(err, TPL_EUSAGE, "unexpected argument '%s'", argv[2]);
    if (what && (!strcmp(what, "--help") || !strcmp(what, "-h"))) {
        puts("usage: trainplan list [models|systems|scenarios|stacks]\n\n"
             "List the presets compiled into trainplan.");
        return 0;
    }
    if (what && !known(what))
        return tpl_errorf(err, TPL_EUSAGE, "'%s' is not one of models, systems, "
                          "scenarios, stacks", what);
    for (size_t i = 0; i < N_LISTS && rc == 0; i++)
        if (!what || !strcmp(what, lists[i].name)) {
            if (shown++)
                putchar('\n');
            rc = lists[i].list(err);
        }
    return rc;
}
