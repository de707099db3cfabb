/**
 * The write path: the only code that writes Queue and PodGroup status.
 *
 * <p>The fold ({@link dev.muster.core.status.StatusFolding}) marks changed objects in a {@link
 * dev.muster.controller.writer.DirtySet} (one entry per object, ever). A {@link
 * dev.muster.controller.writer.StatusWriter} flushes it on an interval: for each due key it reads the desired
 * status <em>now</em>, skips it when it equals what the API already holds ({@link
 * dev.muster.controller.writer.LastWritten}), and otherwise issues one merge patch through the {@link
 * dev.muster.controller.writer.StatusPatcher} port within a {@link dev.muster.controller.writer.TokenBucket}.
 * A failed write backs off per object ({@link dev.muster.core.time.Backoff}) and stays one entry.
 * Pending work is bounded by the number of objects, never by the number of events.
 *
 * <p>{@link dev.muster.controller.writer.KubeStatusPatcher} is the client-java adapter: merge patch, no
 * resourceVersion, to {@code /status} or to the object itself depending on API discovery.
 */
package dev.muster.controller.writer;
