/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "base/confparse.h"
#include "decide/match.h"
#include "decide/quirks.h"
#include "kernel/knob.h"
#include "kernel/machine.h"
#include "kernel/nic.h"

typedef enum LinkPowerMode {
        LINK_POWER_STATIC,  /* the quirk database and the configuration decide L1 */
        LINK_POWER_DYNAMIC, /* the daemon turns L1 off under load, on when quiet */
} LinkPowerMode;

typedef struct Origin {
        const char *file; /* owned by the Config */
        unsigned line;
} Origin;

/* link-power = static|dynamic, and where it was said (file NULL: the default). */
typedef struct LinkPowerSetting {
        int mode; /* LinkPowerMode, -1: not said here */
        Origin origin;
} LinkPowerSetting;

/* suggestions = show|apply: whether reported quirk entries (suggestions) are applied, and where it was said. */
typedef struct SuggestionsSetting {
        int apply; /* 1 apply, 0 show, -1: not said here */
        Origin origin;
} SuggestionsSetting;

typedef enum DriftPolicy {
        DRIFT_REASSERT, /* put the value back, log once per knob and device */
        DRIFT_LEAVE,    /* log it and leave the other tool's value */
        _DRIFT_POLICY_MAX,
        _DRIFT_POLICY_INVALID = -EINVAL,
} DriftPolicy;

/* Where a configured value came from. */

typedef struct ConfigDevice {
        char *name;
        Origin origin;
        NicMatch match;
        bool ignore;
        Origin ignore_origin;
        LinkPowerSetting link_power; /* mode -1: as [global] says */
        SuggestionsSetting suggestions; /* apply -1: as [global] says */
        bool set[_KNOB_MAX];
        uint64_t value[_KNOB_MAX];
        Origin knob_origin[_KNOB_MAX];
        uint16_t assume_xid;         /* CHIP_XID_INVALID unless assume-xid is given */
        Origin assume_origin;
} ConfigDevice;

typedef struct Config {
        Profile profile;
        Origin profile_origin;   /* file NULL: the default */
        bool restore_on_exit;
        int log_level;
        DriftPolicy drift;
        LinkPowerSetting link_power;
        SuggestionsSetting suggestions; /* apply 0 (show) unless said */
        uint64_t link_power_busy_pps;
        uint64_t link_power_quiet_s; /* 0: auto (adaptive) */
        char *metrics_textfile;      /* the daemon publishes its metrics there; NULL: it does not */
        Origin metrics_textfile_origin;
        uint64_t metrics_interval_s; /* and again at this interval (the heartbeat) */
        ConfigDevice *devices;   /* in file order, drop-ins after the main file */
        size_t n_devices;
        bool too_many_devices;  /* more than CONF_MAX_SECTIONS: said once */
        char **files;
        size_t n_files;
        SlotClaim *claims;       /* the sections with assume-xid, in file order */
        size_t n_claims;
} Config;

/* metrics-interval's default: node_exporter's scrapes come every 15 s to a minute. */
#define CONFIG_METRICS_INTERVAL_S 60

#define CONFIG_DEFAULT_PATH R8T_SYSCONF_DIR "/r8169-tuned.conf"

/*
 * Reads path and then path.d/ *.conf in lexical order (later wins). A missing
 * main file is fine: the defaults apply. Every complaint goes to d.
 */
int config_load(Config *c, const char *path, bool required, Diagnostics *d);
/* The same, leaving out the files leave_out has messages about (NULL: none). */
int config_load_except(Config *c, const char *path, bool required, const Diagnostics *leave_out, Diagnostics *d);
/* Just this file, without its drop-ins (check-config FILE). */
int config_load_file(Config *c, const char *path, Diagnostics *d);
/* The text of one file, from memory (the fuzzer: no file per input); name is what diagnostics say. */
int config_load_buffer(Config *c, const char *name, const char *buf, size_t len, Diagnostics *d);
void config_done(Config *c);
void config_defaults(Config *c);

bool config_device_matches(const ConfigDevice *dev, const Nic *n, const Machine *m);
/* The slots the configuration claims (assume-xid), for nic_discover(). */
static inline SlotClaims config_claims(const Config *c) { return (SlotClaims) { c->claims, c->n_claims }; }
/* The link power setting for a NIC: the last matching [device] that says, else [global]. */
const LinkPowerSetting *config_link_power(const Config *c, const Nic *n, const Machine *m, bool *ret_by_device);
/* Whether this NIC's suggestions are applied: the last matching [device] that says, else [global]. */
const SuggestionsSetting *config_suggestions(const Config *c, const Nic *n, const Machine *m);
