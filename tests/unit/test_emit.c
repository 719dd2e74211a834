/* tests/unit/test_emit.c: machine outputs' numbers (results/emit.c): the
 * shortest text that reads back exactly, JSON reals as jansson spells
 * them, schema_version first. */
#include "helpers.h"

#include <stdlib.h>

#include "results/writer.h"

/* Shortest round trip: 0.1 stays 0.1 (not 0.10000000000000001), 0.1 + 0.2
 * needs all 17 digits, 1,219,426 is whole (not %g's 1.21943e+06), and
 * every text reads back to its double. */
Test(emit, shortest_round_trip)
{
    static const double v[] = { 0.1, 0.1 + 0.2, 1219426, 17.30758012004084,
                                1.8841759019150868e18, 4.330222040482519e-5,
                                0, -2.5 };
    static const char *const want[] = { "0.1", "0.30000000000000004",
                                        "1219426", "17.30758012004084",
                                        "1.8841759019150868e+18",
                                        "4.330222040482519e-05", "0", "-2.5" };
    char buf[RES_NUM_LEN];
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        cr_assert_str_eq(res_num_text(v[i], buf, sizeof buf), want[i]);
        cr_assert_eq(strtod(buf, NULL), v[i]);
    }
    cr_assert_str_eq(res_num_text(NAN, buf, sizeof buf), "");
}

/* The JSON dump: schema_version first, reals as jansson writes them (".0"
 * on whole values, no '+' or leading zero in the exponent), full digits. */
Test(emit, json_layout)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    json_t *o = json_pack("{s:f, s:f, s:f, s:I, s:[]}", "a", 2.0, "b", 1e20,
                          "c", 0.30000000000000004, "n", (json_int_t)7, "e");
    cr_assert_eq(res_json_emit(fp, o, NULL), 0);
    fclose(fp);
    cr_assert_str_eq(text, "{\n  \"schema_version\": 1,\n  \"a\": 2.0,\n"
                     "  \"b\": 1e20,\n  \"c\": 0.30000000000000004,\n"
                     "  \"n\": 7,\n  \"e\": []\n}\n");
    free(text);
}

/* A CSV text field: quoted, a quote doubled (RFC 4180 sec. 2.7), a comma
 * kept inside; NULL an empty field. */
Test(emit, csv_text)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    res_csv_text(fp, "no samples, \"none\"");
    res_csv_text(fp, NULL);
    res_csv_text(fp, "");
    fclose(fp);
    cr_assert_str_eq(text, ",\"no samples, \"\"none\"\"\",,\"\"");
    free(text);
}
