/**
 * The {@code muster.v1.Queues} gRPC service: queue and gang state served from the same fold the writer writes
 * from, so what a client reads is what Queue status will say.
 *
 * <p>{@link dev.muster.controller.queues.QueuesService} answers Get/List/GetGang from {@link
 * dev.muster.controller.queues.QueueViews}; Watch subscribers are fed by {@link
 * dev.muster.controller.queues.QueueWatchHub} with latest-value-per-queue coalescing and gRPC flow control, so
 * a slow subscriber holds at most one pending name per queue, never a queue of messages.
 */
package dev.muster.controller.queues;
