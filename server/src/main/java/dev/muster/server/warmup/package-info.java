/**
 * Warming the verbs' code before kube-scheduler's first request: {@link dev.muster.server.warmup.VerbWarmUp} answers
 * made-up requests through the real verbs over a core of its own, while the first full sync runs.
 */
package dev.muster.server.warmup;
