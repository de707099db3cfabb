/**
 * Makes bindings real: {@link dev.muster.server.bind.KubeBinder} implements the core's
 * {@link dev.muster.core.gang.Binder} port by POSTing a {@code v1 Binding} per pod, retrying transient failures
 * within a time budget and treating "already bound" as the truth to check, not an error to repeat.
 */
package dev.muster.server.bind;
