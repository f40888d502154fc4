/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "kernel/ethtool-nl.h"
#include "kernel/knob.h"
#include "kernel/nic.h"
#include "kernel/sysroot.h"

/*
 * One NIC's turn (an apply: its plan's read, its writes, their read-back; or a plan's read
 * alone, for Verify and the metrics), between backend_begin() and backend_end(): what
 * rtnetlink said of its interface, each sysfs backend's directory opened once, and the
 * interface's ethtool features as last known, so that the turn costs the kernel one
 * FEATURES_GET (the plan's read; the expand and the read-back use it) and one FEATURES_SET
 * (whose reply keeps it up to date). Outside a turn nothing is kept: every read asks.
 */
typedef struct BackendSession {
        bool active;
        bool writes;            /* the turn may write: the sysfs knobs it reads are opened for writing too */
        char ifname[IFNAMSIZ];  /* the NIC's interface; "" none */
        /* > 0 its ifindex (ethtool requests carry it); < 0 no such interface (ethtool is not asked, nor its
         * class/net directory read or written); 0 not known */
        int ifindex;
        bool dir_cached[_KNOB_BACKEND_MAX];
        int dir_fd[_KNOB_BACKEND_MAX];
        char dir_path[_KNOB_BACKEND_MAX][64];
        bool features_known;
        EthtoolFeatures features;
        /*
         * A sysfs attribute a writing turn opened and keeps (kept[k]): read for the plan
         * through the fd it is then written through (written[k]), whose read-back is one
         * pread() on it: open, pread, pwrite, pread, close, where opening it for the read and
         * again for the write took two calls more.
         */
        bool kept[_KNOB_MAX];
        bool written[_KNOB_MAX];
        int kept_fd[_KNOB_MAX];
} BackendSession;

/* What the knob backends need: the sysfs root and an ethtool netlink socket. */
typedef struct Backend {
        const Sysroot *root;
        EthtoolNl *nl;   /* NULL when ethtool netlink is unavailable */
        int nl_error;    /* why it is unavailable */
        /*
         * A fixture tree (--sysfs) with the interfaces of the host's own network
         * namespace: its NICs' names may be real interfaces of this machine, so
         * nothing is written to them (tests run in a namespace of their own).
         */
        bool fixture_in_host_netns;
        BackendSession session;
        /* class/net, opened at the first ethtool write and kept: each write asks it whose the name is. */
        int class_net_fd;
        bool class_net_open;
} Backend;

int backend_init(Backend *b, const Sysroot *root);
/*
 * A NIC's turn begins: ifindex is rtnetlink's word on its interface (see BackendSession),
 * 0 where nobody said (the commands); writes, whether it may write (an apply) or only reads.
 * Ends with backend_end(), which drops what it kept.
 */
void backend_begin(Backend *b, const Nic *n, int ifindex, bool writes);
void backend_end(Backend *b);
/* In this NIC's turn, rtnetlink lists no such interface: its class/net directory is left alone. */
bool backend_interface_absent(Backend *b, const Nic *n);
void backend_done(Backend *b);

/*
 * One write request of one backend: the kernel-side items a change touches.
 * For most backends an item is the knob itself; for ethtool features it is one
 * kernel feature ("tx-tcp6-segmentation") of the knob whose pattern covers it.
 * The undo journal records items, so restore puts back exactly what was there.
 */
typedef struct KnobBatchItem {
        KnobId knob;
        char name[ETH_GSTRING_LEN];
        uint64_t value;    /* to write */
        uint64_t original; /* what expand found */
        uint64_t now;      /* what read_items found */
        uint64_t set;      /* restore: what r8169-tuned had set */
        bool has_pending;  /* restore: a write of pending was recorded, maybe not done */
        uint64_t pending;
        int error;         /* read_items: why now is unknown (negative errno), 0 when known */
        bool existed;      /* apply: the journal already had it */
} KnobBatchItem;

#define KNOB_BATCH_MAX 128
typedef struct KnobBatch {
        KnobBatchItem items[KNOB_BATCH_MAX];
        size_t n;
} KnobBatch;

/* Adds an item named after its knob (what expand then resolves); -E2BIG when full. */
int knob_batch_add(KnobBatch *batch, KnobId k, const char *name, uint64_t value);

/*
 * A backend descriptor: everything that differs between sysfs link states,
 * netdev attributes, ethtool features and ethtool attribute groups. Nothing
 * outside backend.c asks which backend a knob has; it asks the descriptor.
 */
struct KnobBackend {
        KnobBackendId id;
        const char *name;          /* "pcie-link": status, man pages */
        const char *journal_kind;  /* the undo journal's word for its entries: "link" */
        const char *words[2];      /* how a boolean is printed: {"0", "1"} or {"off", "on"} */
        bool words_only;           /* the sysfs attribute holds these words, and a value is only ever one of them */
        const char *sysfs_dir;     /* a sysfs attribute per knob, in sysfs_dir + slot or interface + sysfs_subdir */
        const char *sysfs_subdir;
        bool sysfs_by_ifname;      /* the directory is the interface's, not the PCI slot's */
        bool by_feature;           /* items are kernel features matched by the knob's pattern */
        bool batch;                /* all of a NIC's changes of this backend in one request */
        uint8_t drift_ntf;         /* the ethtool notification that says someone changed it; 0: none */
        uint8_t get_cmd, set_cmd;  /* ethtool attribute groups */
        uint16_t header_attr;

        /* Reads every knob of this backend (one request at most). */
        void (*read)(Backend *b, const KnobBackend *be, const Nic *n, KnobReading out[_KNOB_MAX]);
        /* Turns the batch's knob items into kernel items with their originals; drops what already holds. */
        int (*expand)(Backend *b, const KnobBackend *be, const Nic *n, KnobBatch *batch, EthtoolError *err);
        /*
         * Reads the current value of every item (now, or error per item) and, when
         * out is not NULL, the readings of the knobs the items belong to.
         */
        int (*read_items)(Backend *b, const KnobBackend *be, const Nic *n, KnobBatch *batch, KnobReading out[_KNOB_MAX],
                          EthtoolError *err);
        /* Writes every item's value; err gets the kernel's errno and extack. */
        int (*write_items)(Backend *b, const KnobBackend *be, const Nic *n, const KnobBatch *batch, EthtoolError *err);
};

extern const KnobBackend knob_backends[_KNOB_BACKEND_MAX];

const KnobBackend *knob_backend_from_journal_kind(const char *kind);

/* Reads every knob of a NIC (one FEATURES_GET, one COALESCE_GET, ... at most). */
void backend_read_all(Backend *b, const Nic *n, KnobReading out[_KNOB_MAX]);
/* Only the backends of the needed knobs (NULL: all); the others' knobs read "not read" (-ENODATA). */
void backend_read_needed(Backend *b, const Nic *n, const bool needed[_KNOB_MAX], KnobReading out[_KNOB_MAX]);
/* Reads one knob through its backend (not a feature knob: -EOPNOTSUPP). */
int backend_read_knob(Backend *b, const Nic *n, KnobId k, uint64_t *ret);
/* Pure: an attribute group's GET reply, the attributes its knobs read (unit tests, fuzzing). */
int backend_parse_group_reply(const KnobBackend *be, const void *buf, size_t len, EthtoolAttrs *ret);
/* Pure: the state of a feature knob from the kernel's feature list. */
void backend_feature_reading(const EthtoolFeatures *f, KnobId id, KnobReading *ret);
/*
 * Whether this process is in the host's network namespace, where a fixture's interface names may
 * be real interfaces of this machine; where it cannot tell, yes (backend-check.c).
 */
bool backend_in_initial_netns(void);
/*
 * Checks that every knob row has a complete backend and every descriptor all
 * its operations; the unit tests call it, so a row added without one fails.
 * -EINVAL with what is missing in why.
 */
int backend_check_tables(const Knob *knobs, size_t n_knobs, const KnobBackend *backends, size_t n_backends, char *why,
                         size_t size);
