/* SPDX-License-Identifier: GPL-2.0-only */
/* control/shutdown's words and what shimk does for each (pure). */

#include <guest/xen-control.h>
#include <shimk/compiler.h>
#include <shimk/string.h>

/*
 * The words libxl writes (libxl_domain.c): poweroff, reboot, suspend;
 * "halt" from older toolstacks and xenstore-write users, which Linux
 * takes as poweroff; s3 and s4 (ACPI sleep states of HVM guests with a
 * device model) are not shimk's: a PVH domain has no ACPI to put to
 * sleep.
 */
static const struct
{
    const char *word;
    enum xen_control_action action;
} words[] = {
    { "", XEN_CONTROL_NONE },
    { "poweroff", XEN_CONTROL_POWEROFF },
    { "halt", XEN_CONTROL_POWEROFF },
    { "reboot", XEN_CONTROL_REBOOT },
    { "suspend", XEN_CONTROL_SUSPEND },
    { "s3", XEN_CONTROL_UNSUPPORTED },
    { "s4", XEN_CONTROL_UNSUPPORTED },
};

const char *const xen_control_features[] = { "poweroff", "reboot", "suspend",
                                             NULL };

enum xen_control_action xen_control_parse(const char *value)
{
    for ( unsigned int i = 0; i < ARRAY_SIZE(words); i++ )
        if ( !strcmp(value, words[i].word) )
            return words[i].action;
    return XEN_CONTROL_UNKNOWN;
}

const char *xen_control_name(enum xen_control_action a)
{
    switch ( a )
    {
    case XEN_CONTROL_NONE:
        return "none";
    case XEN_CONTROL_POWEROFF:
        return "poweroff";
    case XEN_CONTROL_REBOOT:
        return "reboot";
    case XEN_CONTROL_SUSPEND:
        return "suspend";
    case XEN_CONTROL_UNSUPPORTED:
        return "unsupported";
    case XEN_CONTROL_UNKNOWN:
        break;
    }
    return "unknown";
}
