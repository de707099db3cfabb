/**
 * The HTTP adapter kube-scheduler talks to: {@code POST /filter, /prioritize, /bind, /preempt} on the
 * JDK HTTP server with virtual threads, plus {@code /healthz}, {@code /readyz}, {@code /metrics}.
 * {@link dev.muster.server.http.ExtenderVerbs} turns bytes into {@link dev.muster.core.scheduler.GangScheduler}
 * calls through the streaming wire codec ({@code wire}); {@link dev.muster.server.http.ExtenderHttpServer}
 * adds the guards (method, path, body size, leadership, readiness). A standby forwards verbs to the
 * leader ({@link dev.muster.server.http.LeaderForwarder}).
 */
package dev.muster.server.http;
