/**
 * The extender verbs over gRPC ({@code muster.v1.Extender}): the same {@link dev.muster.core.scheduler.GangScheduler}
 * decisions as HTTP, with status codes for errors and cancellation that frees a waiting bind's slot.
 */
package dev.muster.server.grpc;
