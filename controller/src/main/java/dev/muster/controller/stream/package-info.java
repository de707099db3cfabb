/**
 * The controller's end of the allocation stream: {@link dev.muster.controller.stream.StreamTracker} sits between
 * the stream client and the fold, counting what arrives, measuring how far behind the stream is, and saying
 * when the first snapshot (or event) has been applied — the controller writes nothing before that, so a
 * restart never writes "allocated: 0" for a moment.
 */
package dev.muster.controller.stream;
