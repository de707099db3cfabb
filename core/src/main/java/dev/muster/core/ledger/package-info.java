/**
 * The ledger: the single source of truth about capacity (node allocatable, pods on nodes, assumed binds, gang reservations and their slots). Overcommit is a state, never an exception. Owned and locked by {@link dev.muster.core.scheduler.GangScheduler}.
 */
package dev.muster.core.ledger;
