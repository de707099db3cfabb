/**
 * gRPC client plumbing: channels to Muster's gRPC servers ({@link dev.muster.controller.rpc.GrpcChannels}, with
 * keep-alive and a large inbound limit for snapshots) and client TLS/mTLS from files
 * ({@link dev.muster.controller.rpc.ClientTls}). Used by the controller's stream client and by the demo's CLI.
 * Stateless.
 */
package dev.muster.controller.rpc;
