/**
 * The controller's end of the allocation stream. {@link dev.muster.controller.stream.AllocationStreamClient} is a
 * reconnecting client that resumes from its last applied sequence, follows leader redirects (one hop) and delivers
 * to a core {@link dev.muster.core.stream.AllocationListener} each event exactly once, in order, with
 * {@link dev.muster.controller.stream.BackoffCounter} between attempts; the extender serves the other end.
 * {@link dev.muster.controller.stream.StreamTracker} sits between the stream client and the fold, counting what
 * arrives, measuring how far behind the stream is, and saying when the first snapshot (or event) has been applied
 * — the controller writes nothing before that, so a restart never writes "allocated: 0" for a moment.
 */
package dev.muster.controller.stream;
