/**
 * Leader election over a {@code coordination.k8s.io/v1} Lease, for the extender and the controller.
 *
 * <p>{@link dev.muster.common.leader.LeaderElector} owns the election state machine (candidate → leader → candidate)
 * and talks to storage only through the narrow {@link dev.muster.common.leader.LeaseStore} port (get, create,
 * update with resourceVersion-based optimistic concurrency). {@link dev.muster.common.leader.KubeLeaseStore} is the
 * client-java adapter; an in-memory store for tests ships in this module's test-jar, not in its production jar.
 * Holder identities are {@code <POD_NAME>_<POD_IP>}, or {@code <POD_NAME>_http=<PORT>,grpc=<PORT>_<POD_IP>} for the
 * extender ({@link dev.muster.common.leader.LeaderIdentity}), so that a standby finds the leader's address, host and
 * ports, in the Lease.
 */
package dev.muster.common.leader;
