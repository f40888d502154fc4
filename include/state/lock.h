/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/*
 * The writer's lock of one NIC: <state_dir>/<slot>.lock, flock(LOCK_EX), held
 * around read-journal-plan-write-save by the commands and the daemon alike, so
 * that two writers never interleave and no original is lost. With wait_ms 0 it
 * does not wait (-EAGAIN when another writer holds it). Returns the fd to close.
 */
int lock_nic(const char *state_dir, const char *slot, unsigned wait_ms);
/*
 * Removes each "<slot><suffix>" file for which leftover(suffix) is true (what writers that are
 * gone left: the daemon, once at start), each under its slot's lock; returns how many it left
 * because their slot's lock was held.
 */
unsigned lock_remove_leftovers(const char *state_dir, bool (*leftover)(const char *suffix));
/*
 * The service's lock, <state_dir>/daemon.lock: the daemon holds it while it
 * runs (lock_service), the commands ask whether someone does
 * (lock_service_running: 1, 0, or -errno).
 */
int lock_service(const char *state_dir);
int lock_service_running(const char *state_dir);
/* Whether process pid holds the service's lock (from its /proc/PID/fdinfo): 1, 0, or -errno. */
int lock_service_held_by(const char *state_dir, pid_t pid);
