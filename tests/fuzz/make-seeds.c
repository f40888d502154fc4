/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Writes seed corpora the fuzzers cannot find in the tree as text: ethtool
 * netlink replies and notifications built as the kernel builds them.
 *     make-seeds DIR   ->  DIR/ethtool-reply/{features,coalesce,ntf}
 */
#include <linux/ethtool_netlink.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <sys/stat.h>

#include "base/util.h"

static void save(const char *dir, const char *name, struct nl_msg *m) {
        char path[4096];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        f = fopen(path, "we");
        if (!f)
                exit(1);
        fwrite(nlmsg_hdr(m), 1, nlmsg_hdr(m)->nlmsg_len, f);
        fclose(f);
        nlmsg_free(m);
}

static void put_bits(struct nl_msg *m, int attr, const char *const *names, size_t n, bool list) {
        struct nlattr *set = nla_nest_start(m, attr), *bits;

        if (list)
                nla_put_flag(m, ETHTOOL_A_BITSET_NOMASK);
        nla_put_u32(m, ETHTOOL_A_BITSET_SIZE, (uint32_t) n);
        bits = nla_nest_start(m, ETHTOOL_A_BITSET_BITS);
        for (size_t i = 0; i < n; i++) {
                struct nlattr *bit = nla_nest_start(m, ETHTOOL_A_BITSET_BITS_BIT);
                nla_put_u32(m, ETHTOOL_A_BITSET_BIT_INDEX, (uint32_t) i);
                nla_put_string(m, ETHTOOL_A_BITSET_BIT_NAME, names[i]);
                if (i % 2 == 0)
                        nla_put_flag(m, ETHTOOL_A_BITSET_BIT_VALUE);
                nla_nest_end(m, bit);
        }
        nla_nest_end(m, bits);
        nla_nest_end(m, set);
}

static void header(struct nl_msg *m, int attr) {
        struct nlattr *h = nla_nest_start(m, attr);
        nla_put_u32(m, ETHTOOL_A_HEADER_DEV_INDEX, 2);
        nla_put_string(m, ETHTOOL_A_HEADER_DEV_NAME, "enp1s0");
        nla_nest_end(m, h);
}

int main(int argc, char *argv[]) {
        static const char *const names[] = { "tx-scatter-gather", "tx-tcp-segmentation", "tx-tcp6-segmentation",
                                             "rx-gro", "highdma", "tx-checksum-ip-generic" };
        char dir[4096];
        struct nl_msg *m;

        if (argc != 2)
                return 2;
        snprintf(dir, sizeof(dir), "%s/ethtool-reply", argv[1]);
        mkdir(argv[1], 0755);
        mkdir(dir, 0755);

        m = nlmsg_alloc();
        genlmsg_put(m, 0, 1, 20, 0, 0, ETHTOOL_MSG_FEATURES_GET_REPLY, 1);
        header(m, ETHTOOL_A_FEATURES_HEADER);
        put_bits(m, ETHTOOL_A_FEATURES_HW, names, ELEMENTSOF(names), false);
        put_bits(m, ETHTOOL_A_FEATURES_ACTIVE, names, ELEMENTSOF(names), true);
        put_bits(m, ETHTOOL_A_FEATURES_WANTED, names, 2, true);
        save(dir, "features", m);

        m = nlmsg_alloc();
        genlmsg_put(m, 0, 1, 20, 0, 0, ETHTOOL_MSG_COALESCE_GET_REPLY, 1);
        header(m, ETHTOOL_A_COALESCE_HEADER);
        nla_put_u32(m, ETHTOOL_A_COALESCE_RX_USECS, 50);
        nla_put_u32(m, ETHTOOL_A_COALESCE_RX_MAX_FRAMES, 4);
        nla_put_u8(m, ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, 0);
        save(dir, "coalesce", m);

        m = nlmsg_alloc();
        genlmsg_put(m, 0, 0, 20, 0, 0, ETHTOOL_MSG_FEATURES_NTF, 1);
        header(m, ETHTOOL_A_FEATURES_HEADER);
        save(dir, "ntf", m);
        return 0;
}
