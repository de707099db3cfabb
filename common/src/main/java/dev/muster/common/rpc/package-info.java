/**
 * gRPC plumbing shared by the extender and the controller: building servers from an injectable transport
 * with health and reflection always on and optional (m)TLS from files ({@link dev.muster.common.rpc.GrpcServers},
 * {@link dev.muster.common.rpc.ManagedGrpcServer}, {@link dev.muster.common.rpc.ServerTls}), the standby's
 * "not the leader" answer and how a client reads it ({@link dev.muster.common.rpc.LeaderRedirect}),
 * and the one translation between core values and {@code muster.v1} messages
 * ({@link dev.muster.common.rpc.ProtoConverters}).
 *
 * <p>Owns no long-lived state of its own; everything here is stateless or owned by whoever builds it.
 */
package dev.muster.common.rpc;
