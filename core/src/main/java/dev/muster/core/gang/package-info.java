/**
 * The gang planner (all-or-nothing placement), per-gang bookkeeping, bind waiters and backoff. The planner is pure; {@link dev.muster.core.gang.Gang} is confined to the scheduler's lock.
 */
package dev.muster.core.gang;
