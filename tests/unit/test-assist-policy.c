/* SPDX-License-Identifier: GPL-2.0-only */
/* guest/assist-policy.c: assisted-flush= against every hook and probe outcome. */

#include <guest/assist-policy.h>
#include <shimk/compiler.h>
#include <shimk/errno.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <cmocka.h>

/*
 * The whole table: option (absent, 0, 1) x hook (no, yes) x probe
 * (ok, -ENOSYS, -EINVAL, -EOPNOTSUPP).
 */
static void every_combination(void **state)
{
    static const int probes[] = { 0, -ENOSYS, -EINVAL, -EOPNOTSUPP };

    for ( int opt = -1; opt <= 1; opt++ )
        for ( int hook = 0; hook <= 1; hook++ )
            for ( unsigned int p = 0; p < ARRAY_SIZE(probes); p++ )
            {
                enum assist_decision d = assist_decide(opt, hook, probes[p]);
                enum assist_decision want;

                if ( opt == 0 )
                    want = ASSIST_OFF_OPTION;
                else if ( !hook )
                    want = ASSIST_OFF_NO_HOOK;
                else if ( probes[p] )
                    want = ASSIST_OFF_PROBE_FAILED;
                else
                    want = ASSIST_ON;
                if ( d != want )
                    fail_msg("option %d hook %d probe %d: got %s, want %s",
                             opt, hook, probes[p], assist_decision_text(d),
                             assist_decision_text(want));
                /* Only an explicit 1 that did not happen warns. */
                assert_int_equal(assist_forced_but_off(opt, d),
                                 opt == 1 && want != ASSIST_ON);
            }
}

/* A probe is made only when a hook exists and the option allows it. */
static void probe_only_when_it_decides(void **state)
{
    assert_false(assist_needs_probe(-1, false));
    assert_false(assist_needs_probe(0, true));
    assert_false(assist_needs_probe(1, false));
    assert_true(assist_needs_probe(-1, true));
    assert_true(assist_needs_probe(1, true));
}

/* Each decision says why in words; an unknown one is "?". */
static void texts(void **state)
{
    assert_string_equal(assist_decision_text(ASSIST_ON), "on");
    assert_string_equal(assist_decision_text(ASSIST_OFF_OPTION),
                        "off (assisted-flush=0)");
    assert_string_equal(assist_decision_text(ASSIST_OFF_PROBE_FAILED),
                        "off (the boot probe flush failed)");
    assert_string_equal(assist_decision_text((enum assist_decision)99), "?");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_combination),
        cmocka_unit_test(probe_only_when_it_decides),
        cmocka_unit_test(texts),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
