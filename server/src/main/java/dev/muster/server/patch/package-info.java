/**
 * Patches of pods sent one pod at a time, paced and coalesced per pod ({@link dev.muster.server.patch.PacedPodPatches}).
 * What each patch is, and who may send it, is the user's: the pod waker ({@code server/wake}) and the gate lifter
 * ({@code server/gate}).
 */
package dev.muster.server.patch;
