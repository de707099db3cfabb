/**
 * The controller process: the only writer of Volcano Queue and PodGroup status (one writer, merge
 * patches, pending work bounded by objects).
 *
 * <p>{@link dev.muster.controller.Controller} wires the parts without transports (fold, dirty set, writer,
 * Queues service, input ports) and owns the role: every replica folds, only a warm leader writes.
 * {@link dev.muster.controller.ControllerMain} adds the transports (informers, allocation stream, gRPC, ops
 * HTTP, Lease); {@link dev.muster.controller.ControllerConfig} is the flag contract;
 * {@link dev.muster.controller.ControllerMetrics} the Prometheus surface. Sub-packages: {@code writer} (the
 * write path), {@code sync} (what informers observe), {@code stream} (the allocation stream's end),
 * {@code queues} (the Queues gRPC service).
 */
package dev.muster.controller;
