/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * One MESSAGE_ID per kind of event, so that "journalctl MESSAGE_ID=…" finds
 * every occurrence and "journalctl -x" explains it (systemd/r8169-tuned.catalog).
 */
#define R8T_MESSAGE_KNOB_CHANGED     "b926363d80b442b9a3ac8323c6888e8c"
#define R8T_MESSAGE_KNOB_FAILED      "64f539a2dd224fd38da323b637c7e38e"
#define R8T_MESSAGE_KNOB_UNSUPPORTED "9cbfac6932134f4b9cfa211c261be307"
#define R8T_MESSAGE_KNOB_RESTORED    "842813d3c79c4230a0d3a38a23f80a16"
#define R8T_MESSAGE_KNOB_LEFT_ALONE  "9b5ea075c6c344209cf5822d7ca1d18c"
#define R8T_MESSAGE_DRIFT            "da8236c0ab734f3a8028105923b94089"
#define R8T_MESSAGE_NIC_TUNED        "1605b125a2b640c2ada517d175fd5aad"
#define R8T_MESSAGE_NIC_IGNORED      "39f2453ecf8b45e196e5bf380bdeb440"
#define R8T_MESSAGE_NIC_GONE         "bd75d72fdc1f49098e007363b2aa62c9"
#define R8T_MESSAGE_CONFIG_REJECTED  "2f6fe45a5a694a63a91c6629fe9dce55"
#define R8T_MESSAGE_TX_TIMEOUT_GUARD "6d0c0f6e4b7a4a1f9e3c2b5d8a7f1e42"
#define R8T_MESSAGE_QUIRK_GUARD      "67a299f7d00041c8b05da206087f2fbe"
#define R8T_MESSAGE_EXPERIMENT       "03c5f0adbd744c63829fcbf56dd1a2ce"
