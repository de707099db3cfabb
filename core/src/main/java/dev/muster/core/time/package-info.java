/** Time policies shared by both processes: {@link dev.muster.core.time.Backoff} (capped exponential delays). */
package dev.muster.core.time;
