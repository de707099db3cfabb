/**
 * Whether this extender decides and, when it does not, where the leader serves
 * ({@link dev.muster.server.leader.Leadership}): the one answer the HTTP verbs, the gRPC verbs and the allocation
 * stream ask. Read from the Lease elector of {@code dev.muster.common.leader}; holds no state of its own.
 */
package dev.muster.server.leader;
