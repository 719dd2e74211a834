/* tests/unit/test_common.c: PCG, --set overrides, loaders, output files. */
#include "helpers.h"
#include "common/names.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/outfile.h"
#include "common/rng.h"
#include "spaces/scenario.h"

/* Reference output of pcg32_srandom_r(42, 54) from the PCG distribution's
 * pcg32-demo (O'Neill 2014). */
Test(rng, pcg32_reference_sequence)
{
    static const uint32_t expect[6] = { 0xa15c02b7, 0x7b47f409, 0xba1d3330,
                                        0x83d2f293, 0xbfa4784b, 0xcbed606e };
    struct tpl_rng r;
    tpl_rng_seed(&r, 42, 54);
    for (int i = 0; i < 6; i++)
        cr_assert_eq(tpl_rng_u32(&r), expect[i], "output %d", i);
}

Test(rng, bounded_and_unit)
{
    struct tpl_rng r;
    int seen[10] = { 0 };
    tpl_rng_seed(&r, 1, 1);
    for (int i = 0; i < 10000; i++) {
        uint32_t v = tpl_rng_below(&r, 10);
        double u = tpl_rng_unit(&r);
        cr_assert_lt(v, 10u);
        cr_assert(u >= 0 && u < 1);
        seen[v]++;
    }
    for (int i = 0; i < 10; i++)
        cr_assert(seen[i] > 850 && seen[i] < 1150, "bucket %d: %d", i, seen[i]);
}

Test(conf, set_overrides_and_names_its_origin)
{
    const char *sets[] = { "model.layers=40", "gpu.hbm_gib=96", "model.glu=false" };
    const char *bad[] = { "model.layers=-3" };
    const char *typo[] = { "network.nic_gpbs=800" };
    struct model m;
    struct hw_system h;
    struct tpl_err err = { 0 };
    cr_assert_eq(model_load(&m, "llama3-70b", sets, 3, &err), 0, "%s", err.msg);
    cr_assert_eq(m.layers, 40);
    cr_assert(!m.glu);
    cr_assert_eq(hw_system_load(&h, "dgx-h100", sets, 3, &err), 0, "%s", err.msg);
    cr_assert_eq(h.hbm_bytes, 96.0 * 1073741824.0);
    cr_assert_eq(model_load(&m, "llama3-70b", bad, 1, &err), TPL_ECONFIG);
    cr_assert_str_eq(err.msg, "--set model.layers: 'layers' must be an integer "
                     "in [1, 16384]");
    cr_assert_eq(hw_system_load(&h, "dgx-h100", typo, 1, &err), TPL_ECONFIG);
    cr_assert_str_eq(err.msg, "--set network.nic_gpbs: unknown field 'nic_gpbs' "
                     "in 'network' (did you mean 'nic_gbps'?)");
}

Test(conf, file_errors_name_file_line_field)
{
    char path[] = "/tmp/trainplan-test-XXXXXX";
    int fd = mkstemp(path);
    FILE *fp = fdopen(fd, "w");
    struct model m;
    struct tpl_err err = { 0 };
    char expect[400];
    fputs("model: {\n  name = \"x\"; description = \"y\";\n  layers = 2;\n"
          "  hidden = 100;\n  heads = 3;\n  kv_heads = 3; ffn_hidden = 400;\n"
          "  vocab = 1000; glu = false; tied_embeddings = true;\n"
          "  norm = \"layernorm\"; position = \"rope\"; position_table = 0;\n"
          "  bias = false; dropout = false;\n};\n", fp);
    fclose(fp);
    cr_assert_eq(model_load(&m, path, NULL, 0, &err), TPL_ECONFIG);
    snprintf(expect, sizeof expect, "%s:5: 'heads' must be a divisor of 'hidden'",
             path);
    cr_assert_str_eq(err.msg, expect);
    unlink(path);
    cr_assert_eq(model_load(&m, path, NULL, 0, &err), TPL_EIO);
}

Test(conf, every_preset_loads)
{
    struct tpl_err err = { 0 };
    for (size_t i = 0; i < hw_presets_count; i++) {
        struct hw_system h = load_system(hw_presets[i].name);
        cr_assert_str_eq(h.name, hw_presets[i].name);
        cr_assert_gt(h.hbm_bytes, h.reserve_bytes);
    }
    for (size_t i = 0; i < scenario_presets_count; i++) {
        struct scenario s;
        cr_assert_eq(scenario_load(&s, scenario_presets[i].name, NULL, 0, &err),
                     0, "%s", err.msg);
        load_model(s.model);
        load_system(s.system);
    }
}

Test(outfile, commit_replaces_abort_keeps)
{
    char dir[] = "/tmp/trainplan-out-XXXXXX", path[300], buf[64] = "";
    struct tpl_outfile o;
    struct tpl_err err = { 0 };
    FILE *fp;
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/report.txt", dir);
    cr_assert_eq(tpl_outfile_open(&o, path, &err), 0);
    fputs("first\n", o.fp);
    cr_assert_eq(access(path, F_OK), -1);           /* nothing until commit */
    cr_assert_eq(tpl_outfile_commit(&o, &err), 0);
    cr_assert_eq(tpl_outfile_open(&o, path, &err), 0);
    fputs("half-written", o.fp);
    tpl_outfile_abort(&o);
    fp = fopen(path, "r");
    cr_assert_not_null(fp);
    cr_assert_not_null(fgets(buf, sizeof buf, fp));
    fclose(fp);
    cr_assert_str_eq(buf, "first\n");
    unlink(path);
    cr_assert_eq(rmdir(dir), 0);                    /* no temporary left */
    snprintf(path, sizeof path, "%s/missing/x", dir);
    cr_assert_eq(tpl_outfile_open(&o, path, &err), TPL_EIO);
}

/* A device is written in place: renaming over /dev/null would replace it. */
Test(outfile, devices_are_written_in_place)
{
    struct tpl_outfile o;
    struct tpl_err err = { 0 };
    struct stat st;
    cr_assert_eq(tpl_outfile_open(&o, "/dev/null", &err), 0, "%s", err.msg);
    fputs("nothing\n", o.fp);
    cr_assert_eq(tpl_outfile_commit(&o, &err), 0, "%s", err.msg);
    cr_assert_eq(stat("/dev/null", &st), 0);
    cr_assert(S_ISCHR(st.st_mode));
    cr_assert_eq(tpl_outfile_open(&o, "/dev/full", &err), 0, "%s", err.msg);
    fputs("no room\n", o.fp);
    cr_assert_eq(tpl_outfile_commit(&o, &err), TPL_EIO);
    cr_assert_eq(tpl_outfile_open(&o, "/tmp", &err), TPL_EIO);
}

/* Through a symbolic link the file is replaced and the link stays. */
Test(outfile, links_stay_links)
{
    char dir[] = "/tmp/trainplan-link-XXXXXX", file[300], link[300], buf[32] = "";
    struct tpl_outfile o;
    struct tpl_err err = { 0 };
    struct stat st;
    FILE *fp;
    cr_assert_not_null(mkdtemp(dir));
    snprintf(file, sizeof file, "%s/real.txt", dir);
    snprintf(link, sizeof link, "%s/link.txt", dir);
    fp = fopen(file, "w");
    fputs("old\n", fp);
    fclose(fp);
    cr_assert_eq(symlink(file, link), 0);
    cr_assert_eq(tpl_outfile_open(&o, link, &err), 0, "%s", err.msg);
    fputs("new\n", o.fp);
    cr_assert_eq(tpl_outfile_commit(&o, &err), 0, "%s", err.msg);
    cr_assert_eq(lstat(link, &st), 0);
    cr_assert(S_ISLNK(st.st_mode));
    fp = fopen(file, "r");
    cr_assert_not_null(fgets(buf, sizeof buf, fp));
    fclose(fp);
    cr_assert_str_eq(buf, "new\n");
    unlink(link);
    unlink(file);
    cr_assert_eq(rmdir(dir), 0);
}

/* "Did you mean": Levenshtein distance (case-insensitive), the nearest
 * within 2 edits (1 for 4-5 characters, prefixes only below), first wins. */
Test(names, nearest)
{
    static const struct { const char *name; int x; } t[] = {
        { "search", 0 }, { "sweep", 0 }, { "predict", 0 }, { NULL, 0 },
        { "gpus", 0 },
    };
    size_t n = sizeof t / sizeof t[0];
    cr_assert_eq(tpl_edit_distance("kitten", "sitting"), 3);
    cr_assert_eq(tpl_edit_distance("", "abc"), 3);
    cr_assert_eq(tpl_edit_distance("GPUS", "gpus"), 0);
    cr_assert_str_eq(tpl_nearest_name("serch", t, n, sizeof t[0]), "search");
    cr_assert_str_eq(tpl_nearest_name("predcit", t, n, sizeof t[0]), "predict");
    cr_assert_str_eq(tpl_nearest_name("gpu", t, n, sizeof t[0]), "gpus");
    cr_assert_str_eq(tpl_nearest_name("swep", t, n, sizeof t[0]), "sweep");
    cr_assert_null(tpl_nearest_name("dp", t, n, sizeof t[0]));
    cr_assert_null(tpl_nearest_name("tradeoff", t, n, sizeof t[0]));
}

Test(names, presets_in_any_case)
{
    cr_assert_not_null(conf_preset_find(model_presets, model_presets_count,
                                        "Llama3-70B"));
    cr_assert_null(conf_preset_find(model_presets, model_presets_count,
                                    "llama3-70"));
}

/* The progress line's text (common/log.c): share done, time so far, and
 * time left = elapsed x (1 - f) / f, said once 1 % is done. By hand:
 * 25 % after 30 s leaves 90 s = "1 min 30 s"; 50 % after 2 h leaves 2 h. */
Test(progress, format_eta)
{
    char buf[160];
    tpl_progress_format(buf, sizeof buf, "search", 0.25, 30);
    cr_assert_str_eq(buf, "search:  25.0%, 30 s so far, about 1 min 30 s left");
    tpl_progress_format(buf, sizeof buf, "search", 0.5, 7200);
    cr_assert_str_eq(buf, "search:  50.0%, 2 h 00 min so far, about 2 h 00 min left");
    tpl_progress_format(buf, sizeof buf, "search", 0.9, 9);
    cr_assert_str_eq(buf, "search:  90.0%, 9 s so far, about 1 s left");
    /* too early to say, and done: no time left given */
    tpl_progress_format(buf, sizeof buf, "search", 0.005, 2);
    cr_assert_str_eq(buf, "search:   0.5%, 2 s so far");
    tpl_progress_format(buf, sizeof buf, "search", 1, 61);
    cr_assert_str_eq(buf, "search: 100.0%, 1 min 01 s so far");
    /* a short buffer stays a terminated prefix */
    tpl_progress_format(buf, 10, "search", 0.25, 30);
    cr_assert_str_eq(buf, "search:  ");
}
