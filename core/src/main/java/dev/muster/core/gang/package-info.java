/**
 * Gangs: the planner (pure all-or-nothing placement), admission, the waiting line and its pass, per-gang bookkeeping
 * ({@link dev.muster.core.gang.Gang}), and a pod's bind — its one owner {@link dev.muster.core.gang.PodBinds} (which
 * draws the lifecycle) and the parts that drive it: {@link dev.muster.core.gang.BindVerb},
 * {@link dev.muster.core.gang.BindBarrier}, {@link dev.muster.core.gang.HeldBinds},
 * {@link dev.muster.core.gang.Bindings} and {@link dev.muster.core.gang.Assumptions}. Everything but the planner is
 * confined to the scheduling core's lock ({@link dev.muster.core.gang.Books}).
 */
package dev.muster.core.gang;
